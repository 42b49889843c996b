// `baton status [<run>]`, `baton list`, `baton cancel <run>`, `baton prune` for local runs;
// `baton status owner/repo#N` and `baton logs owner/repo#N` for runs on GitHub (github-run.ts).
import { parseArgs } from 'node:util';
import { localActor } from '../../hosts/local/actor.ts';
import { pruneRuns } from '../../hosts/local/prune.ts';
import { cancelStoredRun, latestRunId, openStore, readRun, summarize } from '../../hosts/local/session.ts';
import { listRunIds, RunStore } from '../../hosts/local/store.ts';
import { describeWaiting, statusText, waitingFor } from '../../hosts/local/waiting.ts';
import { repoRoot } from '../../hosts/local/git.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { knownError, runOptions } from './local-run.ts';
import { githubLogs, githubStatus, threadTarget } from './github-run.ts';
import { stepLines } from './step-lines.ts';

export const statusHelp = `Usage: baton status [<run>] [--repo DIR] [--json]
       baton status OWNER/REPO#N [--run RUN] [--json]

Shows a local run (default: the latest): its status, each step with its state and time,
and what it waits for. The full record is .baton/runs/<run>/record.md.

With OWNER/REPO#N, shows a run on GitHub (default: the newest on that issue or pull
request; --run names another) from the App's status comment: each step with its state,
time and cost, what it waits for, and its worker runs, and what baton said did not run on
that thread: a schedule's ticks (on its tracking issue), starts refused by budget.per-day,
waiting steps whose deadline passed (also when no run is there). Only the status comment written by
the App's bot is trusted (BATON_APP_LOGIN, default baton[bot]). Needs a token that can read
the repository in GITHUB_TOKEN or GH_TOKEN; GITHUB_API_URL for GitHub Enterprise Server;
BATON_STATE_SECRET to check the App's signature on the record.`;

export const logsHelp = `Usage: baton logs OWNER/REPO#N [--step ID] [--run RUN]

Prints what the worker runs of a run on GitHub left: for each step that ran a worker (or
only --step ID), the agent's transcript from the worker's result artifact, or, when the
worker uploaded none, the log of its job. The newest run on the thread unless --run names
another. Needs GITHUB_TOKEN or GH_TOKEN (with Actions read access), like baton status.`;

export const listHelp = `Usage: baton list [--repo DIR] [--json]

Lists the local runs of a repository, newest last, each with its status: running,
waiting for answers or approval (with the step), succeeded, failed, cancelled.`;

export const cancelHelp = `Usage: baton cancel <run> [--repo DIR] [--json]

Cancels a local run: stops its running workers (when another process drives it, that
process is asked to stop) and records the run as cancelled. It works whatever became of
the workflow file since the run started (edited or removed).`;

export const pruneHelp = `Usage: baton prune [--dry-run] [--repo DIR] [--json]

Removes what finished local runs (succeeded, failed, cancelled, stopped) left in the
repository: their worktrees under .baton/worktrees/ and their branches. A succeeded run's
branch baton/<run> is its result: it is kept until it is pushed or merged into the
checked-out branch. Running runs, runs waiting for answers or approval, and runs another
process drives are never touched. The records in .baton/runs/ stay.

Options:
  --dry-run    say what would be removed, remove nothing
  --repo DIR   the repository (default: the current directory)
  --json       print the report as JSON
  -h, --help`;

const OPTIONS = { repo: { type: 'string' }, json: { type: 'boolean' } } as const;
const GITHUB_STATUS_OPTIONS = { ...OPTIONS, run: { type: 'string' } } as const;

export function statusCommand(args: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): number | Promise<number> {
  const { values, positionals } = parseArgs({ args, options: GITHUB_STATUS_OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length > 1) throw new UsageError('name at most one run');
  const onGitHub = threadTarget(positionals[0]);
  if (onGitHub) {
    if (values.repo !== undefined) throw new UsageError('--repo is for local runs; OWNER/REPO#N names the repository already');
    return githubStatus(onGitHub, values, io, env);
  }
  if (values.run !== undefined) throw new UsageError('--run is for a run on GitHub (baton status OWNER/REPO#N --run RUN); name a local run as the argument');
  try {
    const repo = values.repo ?? io.cwd;
    const id = positionals[0] ?? latestRunId(repo);
    if (!id) {
      io.err('baton status: no local runs yet (start one with `baton run <workflow> --local`)');
      return EXIT.usage;
    }
    const store = openStore(repo, id);
    const { state, workflow } = readRun(store);
    const s = summarize(store, state, workflow);
    const driver = store.holder();
    if (values.json) {
      io.out(JSON.stringify({ ...s, drivenBy: driver }, null, 2));
    } else {
      io.out(`run ${s.runId} (${s.workflow}) — ${s.status}${s.reason ? `: ${s.reason}` : ''}${driver ? ` (driven by process ${driver})` : ''}`);
      io.out(`branch ${s.branch} at ${s.head.slice(0, 12)}`);
      io.out(stepLines(s).join('\n'));
      if (s.waiting.length) io.out(describeWaiting(s.runId, s.waiting));
      if (s.prCommand) io.out(`Open the pull request with:\n  ${s.prCommand}`);
      io.out(`record: ${s.recordFile}`);
    }
    return EXIT.ok;
  } catch (err) {
    const code = knownError(err, io, 'status');
    if (code !== null) return code;
    throw err;
  }
}

export function logsCommand(args: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { step: { type: 'string' }, run: { type: 'string' } }, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('name the issue or pull request a run lives on: OWNER/REPO#N');
  const target = threadTarget(positionals[0]);
  if (!target) throw new UsageError(`${JSON.stringify(positionals[0])} is not OWNER/REPO#N (for example acme/widgets#12)`);
  return githubLogs(target, values, io, env);
}

export function listCommand(args: string[], io: CliIO): number {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length) throw new UsageError(`unexpected ${positionals.join(' ')}`);
  try {
    const repo = repoRoot(values.repo ?? io.cwd);
    const rows = listRunIds(repo).map((id) => {
      const store = RunStore.open(repo, id);
      const state = store.state();
      let waiting: ReturnType<typeof waitingFor> = [];
      try {
        if (state) waiting = waitingFor(state, readRun(store).workflow);
      } catch {
        // A run recorded before baton kept its workflow, whose file is gone: its status alone.
      }
      return { runId: id, workflow: store.meta().workflow, status: state?.status ?? 'idle', waiting, startedAt: state?.startedAt ?? null, finishedAt: state?.finishedAt ?? null };
    });
    if (values.json) io.out(JSON.stringify({ runs: rows }, null, 2));
    else if (!rows.length) io.out('no local runs yet');
    else for (const r of rows) io.out(`${r.runId}  ${statusText(r.status, r.waiting)}${r.startedAt ? `  ${new Date(r.startedAt).toISOString()}` : ''}`);
    return EXIT.ok;
  } catch (err) {
    const code = knownError(err, io, 'list');
    if (code !== null) return code;
    throw err;
  }
}

export async function cancelCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('name the run to cancel');
  try {
    const store = openStore(values.repo ?? io.cwd, positionals[0]!);
    const { opts } = runOptions(io, { json: values.json ?? false, interactive: false });
    await cancelStoredRun(store, opts, localActor());
    const { state, workflow } = readRun(store);
    const s = summarize(store, state, workflow);
    if (values.json) io.out(JSON.stringify(s, null, 2));
    else io.out(`run ${s.runId} ${s.status}${s.reason ? `: ${s.reason}` : ''}`);
    return s.status === 'cancelled' ? EXIT.ok : EXIT.failed;
  } catch (err) {
    const code = knownError(err, io, 'cancel');
    if (code !== null) return code;
    throw err;
  }
}

export function pruneCommand(args: string[], io: CliIO): number {
  const { values, positionals } = parseArgs({ args, options: { ...OPTIONS, 'dry-run': { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (positionals.length) throw new UsageError(`unexpected ${positionals.join(' ')}`);
  try {
    const dryRun = values['dry-run'] ?? false;
    const report = pruneRuns(repoRoot(values.repo ?? io.cwd), dryRun);
    if (values.json) {
      io.out(JSON.stringify({ dryRun, ...report }, null, 2));
      return EXIT.ok;
    }
    const verb = dryRun ? 'would remove' : 'removed';
    for (const r of report.pruned) io.out(`${r.runId} (${r.status}): ${verb} ${r.removed.join(', ')}${r.kept.length ? `; kept ${r.kept.join(', ')}` : ''}`);
    for (const s of report.skipped) io.out(`skipped ${s.runId}: ${s.why}`);
    if (!report.pruned.length) io.out('nothing to prune');
    return EXIT.ok;
  } catch (err) {
    const code = knownError(err, io, 'prune');
    if (code !== null) return code;
    throw err;
  }
}
