// The sweep's last job in a repository: deleting the claims nobody can need any more
// (hosts/github/lease.ts says why this is safe). One `matching-refs` read lists the claims;
// each thread holding claims is read once to see its runs' records; the claims of generations
// up to the newest record this process has seen for longer than the grace period are deleted,
// oldest first. Costs per run over its life: one DELETE per claim it made (a paced write),
// spread over the sweeps after each record has aged past the grace period.
import { isTerminal } from '../engine/index.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { deleteRef, listClaims, type ClaimRef, type RecordsSeen } from '../hosts/github/refs.ts';
import { parseRunId } from '../hosts/github/run-id.ts';
import { readThread } from '../hosts/github/thread.ts';
import type { Log, RunService } from './runs.ts';

/** Deletes per repository and sweep: a backlog (a first sweep after an upgrade) drains over several sweeps. */
export const MAX_PRUNED_PER_SWEEP = 100;

/** Claims an unfinished run may keep without its thread being read by each sweep. */
export const FEW_CLAIMS = 3;

export interface PruneReport {
  /** Claims found. */
  claims: number;
  /** Claims deleted. */
  pruned: number;
}

export async function pruneClaims(runs: RunService, gh: RepoContext, seen: RecordsSeen, log: Log, maxDeletes = MAX_PRUNED_PER_SWEEP): Promise<PruneReport> {
  const { clock, graceMs } = runs.leaseOptions;
  const claims = await listClaims(gh);
  const report: PruneReport = { claims: claims.length, pruned: 0 };
  const byRun = new Map<string, ClaimRef[]>();
  for (const c of claims) byRun.set(c.runId, [...(byRun.get(c.runId) ?? []), c]);
  const keyOf = (runId: string) => `${gh.owner}/${gh.repo}#${runId}`.toLowerCase();
  // What the records say now: each thread once (the time taken before the read: the record was there by then).
  // A run this process knows unfinished, with few claims, is not read for them: a few claims per run cost nothing.
  const worthReading = ([runId, refs]: [string, ClaimRef[]]) => {
    const known = runs.memories.get(gh.owner, gh.repo, runId);
    return refs.length > FEW_CLAIMS || !known || isTerminal(known.state.status);
  };
  const threads = new Set([...byRun].filter(worthReading).map(([id]) => parseRunId(id)!.thread));
  for (const thread of threads) {
    const at = clock();
    const read = await readThread(gh, thread);
    for (const r of read.records) if (byRun.has(r.state.runId)) seen.saw(keyOf(r.state.runId), r.gen, at);
  }
  const now = clock();
  for (const [runId, refs] of byRun) {
    const upTo = seen.prunableUpTo(keyOf(runId), now, graceMs);
    for (const c of refs.sort((a, b) => a.gen - b.gen)) {
      if (c.gen > upTo || report.pruned >= maxDeletes) break;
      await deleteRef(gh, c.ref);
      report.pruned++;
    }
    if (refs.every((c) => c.gen <= upTo) && report.pruned < maxDeletes) seen.forget(keyOf(runId));
  }
  if (report.pruned) log.info(`sweep: deleted ${report.pruned} of ${report.claims} claims in ${gh.owner}/${gh.repo}`);
  return report;
}
