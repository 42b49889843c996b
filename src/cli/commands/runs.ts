// `baton status [<run>]`, `baton list`, `baton cancel <run>`, `baton prune` for local runs.
import { parseArgs } from 'node:util';
import { localActor } from '../../hosts/local/actor.ts';
import { pruneRuns } from '../../hosts/local/prune.ts';
import { cancelStoredRun, latestRunId, openStore, readRun, summarize, type RunSummary } from '../../hosts/local/session.ts';
import { listRunIds, RunStore } from '../../hosts/local/store.ts';
import { describeWaiting, statusText, waitingFor } from '../../hosts/local/waiting.ts';
import { repoRoot } from '../../hosts/local/git.ts';
import { duration } from '../../record/format.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { knownError, runOptions } from './local-run.ts';

export const statusHelp = `Usage: baton status [<run>] [--repo DIR] [--json]

Shows a local run (default: the latest): its status, each step with its state and time,
and what it waits for. The full record is .baton/runs/<run>/record.md.`;

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

function steps(s: RunSummary): string[] {
  const width = Math.max(0, ...s.steps.map((x) => x.id.length));
  return s.steps.map((x) => {
    const time = x.startedAt !== null ? duration((x.finishedAt ?? Date.now()) - x.startedAt) : '';
    return `  ${x.id.padEnd(width)}  ${x.status.padEnd(9)}  ${time.padEnd(7)}  ${x.attempt > 1 ? `attempt ${x.attempt}  ` : ''}${x.reason ?? ''}`.trimEnd();
  });
}

export function statusCommand(args: string[], io: CliIO): number {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  if (positionals.length > 1) throw new UsageError('name at most one run');
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
      io.out(steps(s).join('\n'));
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
