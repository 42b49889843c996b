// The day's ledger of `budget.per-day`, kept in refs baton writes: one ref per start let
// through, one per run that ended with a cost, one for the day's note, all under
//
//   refs/baton/budget/<UTC day>/<workflow>/starts/<pool>/<thread>-<start key hash>
//   refs/baton/budget/<UTC day>/<workflow>/spent/<pool>/<run id>/<cost in millionths of a USD>[e]
//   refs/baton/budget/<UTC day>/<workflow>/noted
//
// Why refs, and not the day's comments as before: a ref can be made only with write access to
// the repository's contents, so a stranger can neither fill a day's ledger (the day's comments
// could be flooded by anyone: 1,001 of them made the old count give up and refuse every run)
// nor hide a start from it; a comment that looks like baton's counts for nothing here. The
// whole ledger of a workflow's day is one listing (`matching-refs`), a few refs long: at most
// its caps' worth of starts per pool. No branch or tag, so no workflow runs on them and no
// webhook is sent (tests/emulator/FIDELITY.md, "Which refs have webhooks").
//
// Each ref points at a commit of the default branch (the manifests' commit of the start, or its
// tip when GitHub's workflow-file rule refuses an older one): its name is the record, its
// target only has to exist.
import { createHash } from 'node:crypto';
import { emptyLedger, POOLS, utcDay, type DayLedger, type Pool } from '../../engine/daily-budget.ts';
import type { RunState } from '../../engine/index.ts';
import type { RepoContext } from './client.ts';
import { createRef, deleteRef, refsUnder } from './git-refs.ts';
import { defaultBranchTip, workflowRuleRefusal } from './workflow-rule.ts';

/** Refs under this prefix are the daily budgets' ledgers. */
export const BUDGET_PREFIX = 'refs/baton/budget/';

const DAY_MS = 86_400_000;

function dayPrefix(day: string, workflow: string): string {
  return `${BUDGET_PREFIX}${day}/${workflow}/`;
}

/** A start's name in the ledger: its thread, and a hash of its delivery key (a redelivery names the same start). */
export function startName(thread: number, key: string): string {
  return `${thread}-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

/** The ref of a start let through on the UTC day of `at`. */
export function startRef(at: number, workflow: string, pool: Pool, name: string): string {
  return `${dayPrefix(utcDay(at), workflow)}starts/${pool}/${name}`;
}

const isPool = (s: string | undefined): s is Pool => (POOLS as readonly string[]).includes(s ?? '');

/** One workflow's ledger of the UTC day of `at`: one read. */
export async function readDay(gh: RepoContext, at: number, workflow: string): Promise<DayLedger> {
  const prefix = dayPrefix(utcDay(at), workflow);
  const day = emptyLedger();
  for (const { ref } of await refsUnder(gh, prefix.slice('refs/'.length))) {
    const [kind, pool, name, amount, ...rest] = ref.slice(prefix.length).split('/');
    if (kind === 'noted' && pool === undefined) day.noted = true;
    else if (kind === 'starts' && isPool(pool) && name && amount === undefined) day.starts[pool].add(name);
    else if (kind === 'spent' && isPool(pool) && name && amount && rest.length === 0) {
      const m = /^(\d{1,15})(e?)$/.exec(amount);
      if (!m) continue;
      const costUsd = Number(m[1]) / 1e6;
      // A run's end written twice (its record's write failed, and the end was seen again) counts once, at its highest.
      const known = day.spent[pool].get(name);
      if (!known || costUsd > known.costUsd) day.spent[pool].set(name, { costUsd, estimated: m[2] === 'e' });
    }
  }
  return day;
}

/**
 * Makes a ledger ref at `sha`; a commit the workflow-file rule refuses (the default branch's
 * workflow files changed since it) is replaced by the default branch's tip. True when this call
 * made it (or may have: an earlier try went unanswered), false when it was there already.
 */
async function makeLedgerRef(gh: RepoContext, ref: string, sha: string): Promise<boolean> {
  let made;
  try {
    made = await createRef(gh, ref, sha);
  } catch (err) {
    if (!workflowRuleRefusal(err)) throw err;
    made = await createRef(gh, ref, (await defaultBranchTip(gh)).sha);
  }
  return made.created || made.unanswered;
}

/** Writes a start into the ledger, before the run is made: the count stays right across processes that check one after another. */
export async function recordStart(gh: RepoContext, ref: string, sha: string): Promise<void> {
  await makeLedgerRef(gh, ref, sha);
}

/** Takes a start back out of the ledger: it made no run (given way, refused by the engine). */
export async function forgetStart(gh: RepoContext, ref: string): Promise<void> {
  await deleteRef(gh, ref);
}

/** Claims the day's note for refused automatic starts: true for the one caller that should post it. */
export async function claimNote(gh: RepoContext, at: number, workflow: string, sha: string): Promise<boolean> {
  return makeLedgerRef(gh, `${dayPrefix(utcDay(at), workflow)}noted`, sha);
}

/**
 * Writes what a run that has just ended cost into the ledger of the day it started (nothing for
 * a run that cost nothing). `pool` is the one its start spent from.
 */
export async function recordSpent(gh: RepoContext, state: RunState, pool: Pool): Promise<void> {
  const cost = state.budget.costUsd;
  if (state.startedAt === null || !Number.isFinite(cost) || cost <= 0) return;
  const amount = `${Math.round(cost * 1e6)}${state.budget.costEstimated ? 'e' : ''}`;
  await makeLedgerRef(gh, `${dayPrefix(utcDay(state.startedAt), state.workflow)}spent/${pool}/${state.runId}/${amount}`, state.manifestCommit);
}

/** Refs deleted at most per call of pruneDays: a backlog is cleared over a few days' first starts, never in one start. */
export const PRUNE_MAX = 100;

/**
 * Deletes the ledgers of days before yesterday (yesterday's stays: a run started then may still
 * be counted by a process whose clock is behind). Called on a workflow's first start of a day.
 */
export async function pruneDays(gh: RepoContext, at: number): Promise<void> {
  const keep = utcDay(at - DAY_MS);
  const old = (await refsUnder(gh, BUDGET_PREFIX.slice('refs/'.length))).filter(({ ref }) => {
    const day = ref.slice(BUDGET_PREFIX.length, BUDGET_PREFIX.length + 10);
    return /^\d{4}-\d{2}-\d{2}$/.test(day) && day < keep;
  });
  for (const { ref } of old.slice(0, PRUNE_MAX)) await deleteRef(gh, ref);
}
