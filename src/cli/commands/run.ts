// `baton run <workflow> --local [--repo DIR] [--input k=v…] [--json]`
import { parseArgs } from 'node:util';
import { startLocalRun, parseInputs } from '../../hosts/local/session.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { driveToStop, interactiveTerminal, knownError, runOptions } from './local-run.ts';

export const help = `Usage: baton run <workflow> --local [--repo DIR] [--input key=value…] [--json]

Runs a workflow on a local git checkout. <workflow> is a name in .agents/workflows/,
else in baton's bundled workflows-library/, or a path to a manifest file.

The run gets its own branch baton/<run-id>; each writing step works in a git worktree
under .baton/worktrees/ on a branch of its own and is merged back with git merge. Your
current branch and working tree are never touched. The record is in .baton/runs/<id>/
(events.jsonl, state.json, record.md).

Options:
  --local          run here, not on GitHub (required for now)
  --repo DIR       the repository (default: the current directory)
  --input k=v      a workflow input; repeat for more. issue="…" stands in for the issue
                   text when the workflow reads issue.title / issue.body
  --json           print the final summary as JSON (progress goes to stderr)
  -h, --help

Questions of ask steps are asked on the terminal; without one the command exits 3 and
prints them: answer with \`baton answer <run> "…"\`, approve with \`baton approve <run>\`.

Exit status: 0 done, 1 failed or stopped by its budget, 2 usage or manifest error,
3 waiting for input.`;

export async function runCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { local: { type: 'boolean' }, repo: { type: 'string' }, input: { type: 'string', multiple: true }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('name one workflow (a name or a manifest file)');
  if (!values.local) throw new UsageError('only local runs are supported from the command line: add --local (on GitHub, comment `/baton <workflow>` or use the MCP server)');
  const json = values.json ?? false;
  const flags = { json, interactive: interactiveTerminal(json) };
  const { opts, progress } = runOptions(io, flags);
  try {
    const run = await startLocalRun(values.repo ?? io.cwd, positionals[0]!, parseInputs(values.input ?? []), opts, io.cwd);
    if (run.state.status === 'idle') {
      io.err(`baton run: the run was refused (see above)`);
      return EXIT.usage;
    }
    return await driveToStop(run, io, flags, progress);
  } catch (err) {
    const code = knownError(err, io, 'run');
    if (code !== null) return code;
    throw err;
  }
}
