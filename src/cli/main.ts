// The `baton` command line: picks the subcommand, turns usage mistakes into exit 2.
// Each command's module is imported only when that command runs (or shows its help): the MCP
// server, the local host and their dependencies cost nothing to `baton --help` or `--version`.
import { EXIT, UsageError, errorLine, processIO, type CliIO } from './io.ts';
import { PACKAGE_NAME, batonVersion } from '../names.ts';

interface Loaded {
  help: string;
  run(args: string[], io: CliIO, env: NodeJS.ProcessEnv): number | Promise<number>;
}

interface Command {
  summary: string;
  load(): Promise<Loaded>;
}

/** A command whose module is imported on first use; `pick` takes its help and entry point. */
function lazy<M>(load: () => Promise<M>, pick: (m: M) => Loaded): () => Promise<Loaded> {
  return async () => pick(await load());
}

const COMMANDS: Record<string, Command> = {
  validate: { summary: 'check workflow manifests (file:line:col errors)', load: lazy(() => import('./commands/validate.ts'), (m) => ({ help: m.help, run: m.validateCommand })) },
  graph: { summary: 'print a workflow step graph as a mermaid diagram (a name as for run, or a file)', load: lazy(() => import('./commands/graph.ts'), (m) => ({ help: m.help, run: m.graphCommand })) },
  run: { summary: 'run a workflow on this checkout (--local): worktrees, local agents', load: lazy(() => import('./commands/run.ts'), (m) => ({ help: m.help, run: m.runCommand })) },
  resume: { summary: 'continue an interrupted local run from its events', load: lazy(() => import('./commands/resume.ts'), (m) => ({ help: m.resumeHelp, run: m.resumeCommand })) },
  answer: { summary: "answer a local run's questions and continue it", load: lazy(() => import('./commands/resume.ts'), (m) => ({ help: m.answerHelp, run: m.answerCommand })) },
  approve: { summary: 'approve the step a local run waits at and continue it', load: lazy(() => import('./commands/resume.ts'), (m) => ({ help: m.approveHelp, run: m.approveCommand })) },
  status: { summary: 'show a run, local or on GitHub (owner/repo#N): steps, states, times, costs', load: lazy(() => import('./commands/runs.ts'), (m) => ({ help: m.statusHelp, run: m.statusCommand })) },
  logs: { summary: 'print the agent transcripts (or job logs) of a run on GitHub (owner/repo#N)', load: lazy(() => import('./commands/runs.ts'), (m) => ({ help: m.logsHelp, run: m.logsCommand })) },
  list: { summary: 'list the local runs of this repository, with what each waits for', load: lazy(() => import('./commands/runs.ts'), (m) => ({ help: m.listHelp, run: m.listCommand })) },
  cancel: { summary: 'cancel a local run', load: lazy(() => import('./commands/runs.ts'), (m) => ({ help: m.cancelHelp, run: m.cancelCommand })) },
  prune: { summary: "remove finished local runs' worktrees and branches (--dry-run)", load: lazy(() => import('./commands/runs.ts'), (m) => ({ help: m.pruneHelp, run: m.pruneCommand })) },
  init: { summary: 'set a repository up: workflows, the worker workflow, Actions-only mode', load: lazy(() => import('./commands/init.ts'), (m) => ({ help: m.help, run: (args, io) => m.initCommand(args, io) })) },
  update: { summary: 'refresh what init wrote to this version, keeping your edits (three-way merge)', load: lazy(() => import('./commands/update.ts'), (m) => ({ help: m.help, run: m.updateCommand })) },
  doctor: { summary: 'check which agent CLIs and credentials are available here; --github OWNER/REPO: schedules that did not run', load: lazy(() => import('./commands/doctor.ts'), (m) => ({ help: m.help, run: (args, io, env) => m.doctorCommand(args, io, env) })) },
  mcp: { summary: 'serve the MCP tools over stdio (for Claude Code, Codex, Cursor…)', load: lazy(() => import('./commands/mcp.ts'), (m) => ({ help: m.help, run: m.mcpCommand })) },
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
    'Run `baton <command> --help` (or `baton help <command>`) for the options of one command; `baton --version` for the version.',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO = processIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    io.out(`${PACKAGE_NAME} ${batonVersion()}`);
    return EXIT.ok;
  }
  // `baton help <command>` is `baton <command> --help`, as in git and npm.
  if (name === 'help' && rest.length > 0) return main([rest[0]!, '--help'], io, env);
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.err(`baton: unknown command ${JSON.stringify(name)}\n\n${usage()}`);
    return EXIT.usage;
  }
  const command = await entry.load();
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
      io.err(`${errorLine(name, (err as Error).message)}\n\n${command.help}`);
      return EXIT.usage;
    }
    throw err;
  }
}
