// `baton status [<run>]`, `baton list`, `baton cancel <run>` for local runs.
import { parseArgs } from 'node:util';
import { localActor } from '../../hosts/local/actor.ts';
import { LocalRun } from '../../hosts/local/run.ts';
import { cancelEvent, latestRunId, openStore, readRun, summarize, type RunSummary } from '../../hosts/local/session.ts';
import { listRunIds, RunStore } from '../../hosts/local/store.ts';
import { describeWaiting } from '../../hosts/local/waiting.ts';
import { repoRoot } from '../../hosts/local/git.ts';
import { duration } from '../../record/format.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { knownError, runOptions } from './local-run.ts';

export const statusHelp = `Usage: baton status [<run>] [--repo DIR] [--json]

Shows a local run (default: the latest): its status, each step with its state and time,
and what it waits for. The full record is .baton/runs/<run>/record.md.`;

export const listHelp = `Usage: baton list [--repo DIR] [--json]

Lists the local runs of a repository, newest last.`;

export const cancelHelp = `Usage: baton cancel <run> [--repo DIR] [--json]

Cancels a local run: stops its running workers (when another process drives it, that
process is asked to stop) and records the run as cancelled.`;

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
      return { runId: id, workflow: store.meta().workflow, status: state?.status ?? 'idle', startedAt: state?.startedAt ?? null, finishedAt: state?.finishedAt ?? null, waiting: state ? state.steps.some((st) => st.status === 'running' && (st.ask !== null)) : false };
    });
    if (values.json) io.out(JSON.stringify({ runs: rows }, null, 2));
    else if (!rows.length) io.out('no local runs yet');
    else for (const r of rows) io.out(`${r.runId}  ${r.status}${r.startedAt ? `  ${new Date(r.startedAt).toISOString()}` : ''}`);
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
    const holder = store.lock();
    if (holder !== null) {
      // One writer per run: the process driving it records the cancel itself.
      process.kill(holder, 'SIGTERM');
      const until = Date.now() + 30_000;
      while (store.holder() !== null && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    } else {
      const flags = { json: values.json ?? false, interactive: false };
      const { opts } = runOptions(io, flags);
      const run = await LocalRun.resume(store, opts, false);
      if (run.state.status === 'running') {
        await run.feed([cancelEvent(run.state, localActor())]);
        await run.loop();
      }
      store.unlock();
    }
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
