// `baton run <workflow> --local [--repo DIR] [--input k=v…] [--base BRANCH] [--json]`
import { parseArgs } from 'node:util';
import { startLocalRun, parseInputs } from '../../hosts/local/session.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { driveToStop, interactiveTerminal, knownError, runOptions } from './local-run.ts';

export const help = `Usage: baton run <workflow> --local [--repo DIR] [--input key=value…] [--base BRANCH] [--json]

Runs a workflow on a local git checkout. <workflow> is a name in .agents/workflows/,
else in baton's bundled workflows-library/, or a path to a manifest file.

The run gets its own branch baton/<run-id>; each writing step works in a git worktree
under .baton/worktrees/ on a branch of its own and is merged back with git merge. Your
current branch and working tree are never touched. The record is in .baton/runs/<id>/
(events.jsonl, state.json, record.md).

Options:
  --local          run here, not on GitHub (required for now)
  --repo DIR       the repository (default: the current directory)
  --input k=v      a workflow input; repeat for more. Two names stand in for the thread a
                   run lives on on GitHub, unless the workflow declares an input so named:
                     issue="<text>"          the issue: its first line issue.title, the
                                             next lines issue.body; issue.number 0
                     pr=<branch>             a local branch as the pull request: the run
                                             starts from its head; pr.title is its lone
                                             commit's subject (else the branch name), pr.body
                                             the commits' messages, pr.head the branch,
                                             pr.base the branch it merges into, pr.number 0.
                                             A review step's review is printed here and kept
                                             in the record (reviews/<step>-a<attempt>.md)
  --base BRANCH    with pr=: the branch it would merge into (default: origin's default
                   branch, else main or master)
  --json           print the final summary as JSON (progress goes to stderr)
  -h, --help

A workflow that reads issue.* or pr.* text that this run does not have says so when it
starts (the text is empty). Automatic triggers (on.pull_request, on.issues, on.workflow_run,
on.schedule) do not apply locally: every local run is started by this command, e.g.
  baton run review-pr --local --input pr=my-feature
  baton run ci-doctor --local --input issue="$(printf 'CI red on main\\n%s' "$log")"
  baton run weekly-upkeep --local

Questions of ask steps are asked on the terminal; without one the command exits 3 and
prints them: answer with \`baton answer <run> "…"\`, approve with \`baton approve <run>\`.

Exit status: 0 done, 1 failed or stopped by its budget, 2 usage or manifest error (an
unknown branch for pr= or --base included), 3 waiting for input.`;

export async function runCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { local: { type: 'boolean' }, repo: { type: 'string' }, input: { type: 'string', multiple: true }, base: { type: 'string' }, json: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  if (positionals.length !== 1) throw new UsageError('name one workflow (a name or a manifest file)');
  if (!values.local) throw new UsageError('only local runs are supported from the command line: add --local (on GitHub, comment `/baton <workflow>` or use the MCP server)');
  const json = values.json ?? false;
  const flags = { json, interactive: interactiveTerminal(json) };
  const { opts, progress } = runOptions(io, flags);
  try {
    const run = await startLocalRun(values.repo ?? io.cwd, positionals[0]!, parseInputs(values.input ?? []), opts, io.cwd, { base: values.base });
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
