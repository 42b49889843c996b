// The `baton` command line: picks the subcommand, turns usage mistakes into exit 2.
import { graphCommand, help as graphHelp } from './commands/graph.ts';
import { validateCommand, help as validateHelp } from './commands/validate.ts';
import { answerCommand, answerHelp, approveCommand, approveHelp, resumeCommand, resumeHelp } from './commands/resume.ts';
import { doctorCommand, help as doctorHelp } from './commands/doctor.ts';
import { mcpCommand, help as mcpHelp } from './commands/mcp.ts';
import { initCommand, help as initHelp } from './commands/init.ts';
import { updateCommand, help as updateHelp } from './commands/update.ts';
import { runCommand, help as runHelp } from './commands/run.ts';
import { cancelCommand, cancelHelp, listCommand, listHelp, logsCommand, logsHelp, statusCommand, statusHelp } from './commands/runs.ts';
import { EXIT, UsageError, processIO, type CliIO } from './io.ts';
import { PACKAGE_NAME, batonVersion } from '../names.ts';

interface Command {
  summary: string;
  help: string;
  run(args: string[], io: CliIO, env: NodeJS.ProcessEnv): number | Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  validate: { summary: 'check workflow manifests (file:line:col errors)', help: validateHelp, run: validateCommand },
  graph: { summary: 'print a workflow step graph as a mermaid diagram', help: graphHelp, run: graphCommand },
  run: { summary: 'run a workflow on this checkout (--local): worktrees, local agents', help: runHelp, run: runCommand },
  resume: { summary: 'continue an interrupted local run from its events', help: resumeHelp, run: resumeCommand },
  answer: { summary: "answer a local run's questions and continue it", help: answerHelp, run: answerCommand },
  approve: { summary: 'approve the step a local run waits at and continue it', help: approveHelp, run: approveCommand },
  status: { summary: 'show a run, local or on GitHub (owner/repo#N): steps, states, times, costs', help: statusHelp, run: statusCommand },
  logs: { summary: 'print the agent transcripts (or job logs) of a run on GitHub (owner/repo#N)', help: logsHelp, run: logsCommand },
  list: { summary: 'list the local runs of this repository', help: listHelp, run: listCommand },
  cancel: { summary: 'cancel a local run', help: cancelHelp, run: cancelCommand },
  init: { summary: 'set a repository up: workflows, the worker workflow, Actions-only mode', help: initHelp, run: (args, io) => initCommand(args, io) },
  update: { summary: 'refresh what init wrote to this version, keeping your edits (three-way merge)', help: updateHelp, run: updateCommand },
  doctor: { summary: 'check which agent CLIs and credentials are available here', help: doctorHelp, run: (args, io) => doctorCommand(args, io) },
  mcp: { summary: 'serve the MCP tools over stdio (for Claude Code, Codex, Cursor…)', help: mcpHelp, run: mcpCommand },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  return [
    'Usage: baton <command> [options]',
    '',
    'baton runs multi-step AI agent workflows from .agents/workflows/*.yml.',
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `baton <command> --help` for the options of one command; `baton --version` for the version.',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO = processIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.out(`${PACKAGE_NAME} ${batonVersion()}`);
    return EXIT.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`baton: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return EXIT.usage;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(command.help);
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io, env);
  } catch (err) {
    // parseArgs reports unknown options with codes like ERR_PARSE_ARGS_UNKNOWN_OPTION.
    const code = (err as { code?: string }).code ?? '';
    if (err instanceof UsageError || code.startsWith('ERR_PARSE_ARGS')) {
      io.err(`baton ${name}: ${(err as Error).message}\n\n${command.help}`);
      return EXIT.usage;
    }
    throw err;
  }
}
