// The sweep's last job in a repository: deleting the claims nobody can need any more
// (hosts/github/lease.ts says why this is safe). One `matching-refs` read lists the claims;
// each thread holding claims is read once to see its runs' records; the claims of generations
// up to a record whose comment GitHub stamped (`updated_at`) longer than the grace period plus
// CLOCK_MARGIN_MS before the thread was read (the answer's `Date`) are deleted, oldest first.
// Only GitHub's clock is read, so a process that has just started (an App after a restart, an
// Actions-only scheduled job) deletes them as well as one that has watched the run for hours.
// Costs per run over its life: one DELETE per claim it made (a paced write), spread over the
// sweeps after each record has aged past the grace period.
import { isTerminal } from '../engine/index.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { deleteRef } from '../hosts/github/git-refs.ts';
import { listClaims, type ClaimRef } from '../hosts/github/refs.ts';
import { parseRunId } from '../hosts/github/run-id.ts';
import { readThread } from '../hosts/github/thread.ts';
import type { Log, RunService } from './runs.ts';

/** Deletes per repository and sweep: a backlog (a first sweep after an upgrade) drains over several sweeps. */
export const MAX_PRUNED_PER_SWEEP = 100;

/** Claims an unfinished run may keep without its thread being read by each sweep. */
export const FEW_CLAIMS = 3;

/**
 * M in lease.ts: what a record's `updated_at` must be older than, beyond the grace period, on
 * GitHub's clock — room for GitHub's servers' clocks to disagree, for both stamps being whole
 * seconds, and for a read replica lagging the write.
 */
export const CLOCK_MARGIN_MS = 60_000;

export interface PruneReport {
  /** Claims found. */
  claims: number;
  /** Claims deleted. */
  pruned: number;
}

/**
 * The records a process saw, with the time GitHub stamped each (generation, `updated_at`): the
 * claims up to one of them may go once that stamp has aged, even after the comment moved on.
 * Only GitHub's stamps are kept, so what a process remembers is as sound as what it reads now.
 */
export class RecordStamps {
  private readonly runs = new Map<string, { gen: number; updatedAt: number }[]>();
  /** Notes a record as seen; returns every stamp noted for the run (a few: older ones are merged away). */
  note(key: string, gen: number, updatedAt: number): { gen: number; updatedAt: number }[] {
    if (this.runs.size > 5000) this.runs.clear();
    const list = this.runs.get(key) ?? [];
    if (!list.some((st) => st.gen === gen)) list.push({ gen, updatedAt });
    // Only the newest aged-enough stamp matters once another is older still: keep the last few.
    const kept = list.sort((a, b) => a.gen - b.gen).slice(-8);
    this.runs.set(key, kept);
    return kept;
  }
}

/** One per process (the stamps it has seen live as long as it does). */
const seen = new RecordStamps();

export async function pruneClaims(runs: RunService, gh: RepoContext, log: Log, maxDeletes = MAX_PRUNED_PER_SWEEP): Promise<PruneReport> {
  const ageMs = runs.leaseOptions.graceMs + CLOCK_MARGIN_MS;
  const claims = await listClaims(gh);
  const report: PruneReport = { claims: claims.length, pruned: 0 };
  const byRun = new Map<string, ClaimRef[]>();
  for (const c of claims) byRun.set(c.runId, [...(byRun.get(c.runId) ?? []), c]);
  // What the records say now: each thread once. A run this process knows unfinished, with few
  // claims, is not read for them: a few claims per run cost nothing.
  const worthReading = ([runId, refs]: [string, ClaimRef[]]) => {
    const known = runs.memories.get(gh.owner, gh.repo, runId);
    return refs.length > FEW_CLAIMS || !known || isTerminal(known.state.status);
  };
  const threads = new Set([...byRun].filter(worthReading).map(([id]) => parseRunId(id)!.thread));
  // Per run, the newest generation whose record GitHub stamped long enough before a later answer.
  const prunable = new Map<string, number>();
  for (const thread of threads) {
    const read = await readThread(gh, thread);
    if (read.readAt === undefined) {
      log.warn(`sweep: GitHub's answer listing the comments of #${thread} in ${gh.owner}/${gh.repo} carried no Date header; the claims of its runs are kept`);
      continue;
    }
    for (const r of read.records) {
      if (!byRun.has(r.state.runId) || r.updatedAt === undefined) continue;
      // Older records this process saw stamped count as well as the one shown now: a busy run,
      // whose comment is rewritten every few minutes, still has its older claims deleted.
      const key = `${gh.owner}/${gh.repo}#${r.state.runId}`.toLowerCase();
      const stamps = seen.note(key, r.gen, r.updatedAt);
      const aged = stamps.filter((st) => read.readAt! - st.updatedAt > ageMs);
      if (aged.length) prunable.set(r.state.runId, Math.max(prunable.get(r.state.runId) ?? 0, ...aged.map((st) => st.gen)));
    }
  }
  for (const [runId, upTo] of prunable) {
    for (const c of byRun.get(runId)!.sort((a, b) => a.gen - b.gen)) {
      if (c.gen > upTo || report.pruned >= maxDeletes) break;
      await deleteRef(gh, c.ref);
      report.pruned++;
    }
  }
  if (report.pruned) log.info(`sweep: deleted ${report.pruned} of ${report.claims} claims in ${gh.owner}/${gh.repo}`);
  return report;
}
