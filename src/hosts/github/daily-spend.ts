// The day's runs, read from GitHub: `budget.per-day` keeps no count of its own (a count in
// one process would be wrong for the next replica, and Actions-only mode has no process that
// lives past a job). A run's record is its status comment, so one listing of the repository's
// issue comments touched since the UTC day began holds every run started that day: a run's
// status comment is created when it starts, and `since` keeps comments whose `updated_at`
// (never before `created_at`) is at or after it. Older runs' records edited today come along
// and are set aside by their `startedAt`.
import type { RunState } from '../../engine/index.ts';
import { utcDayStart } from '../../engine/daily-budget.ts';
import { findRecords } from '../../record/find.ts';
import type { RepoContext } from './client.ts';
import { markersOf, threadCommentOf } from './thread.ts';

/** Pages of 100 comments read at most: a repository with more comments touched today is not counted (see `complete`). */
export const DAY_READ_MAX_PAGES = 10;
/**
 * Read from this much before the day began: `since` is on GitHub's clock, a run's `startedAt`
 * on the clock of the process that started it, and the two may differ a little.
 */
const CLOCK_SKEW_MS = 10 * 60_000;

export interface DayRead {
  /** The trusted records found, one per run (its newest). */
  runs: RunState[];
  /** The markers of baton's own comments read (notes already posted today). */
  markers: Set<string>;
  /**
   * False when the repository had more comments touched today than DAY_READ_MAX_PAGES pages
   * hold: the runs above are then not all of the day's, and a cap cannot be said to allow a run.
   */
  complete: boolean;
}

/**
 * Every record of a run started on the UTC day of `at`, and baton's markers, from one listing.
 * Records are trusted by the one rule every reader uses (record/find.ts): baton's own comment,
 * the record marker first, the state block's hash matching. A state block anyone else pasted
 * is set aside, so nobody can spend a workflow's budget (or hide its spending) by writing one.
 */
export async function readDay(gh: RepoContext, at: number): Promise<DayRead> {
  const since = new Date(utcDayStart(at) - CLOCK_SKEW_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const comments = [];
  let pages = 0;
  let complete = true;
  // Oldest first (`sort: created`): comments written while the pages are read only add pages at the end.
  const pager = gh.octokit.paginate.iterator('GET /repos/{owner}/{repo}/issues/comments', { owner: gh.owner, repo: gh.repo, since, sort: 'created', direction: 'asc', per_page: 100 });
  for await (const page of pager) {
    comments.push(...page.data.map(threadCommentOf));
    if (++pages === DAY_READ_MAX_PAGES) {
      complete = !/rel="next"/.test(page.headers.link ?? '');
      break;
    }
  }
  // The one rule for records (record/find.ts) and for markers (thread.ts): only baton's own comments count.
  const { records } = findRecords(comments, gh.botLogin, gh.stateSecret);
  const newest = new Map<string, (typeof records)[number]>();
  for (const r of records) {
    const known = newest.get(r.state.runId);
    if (!known || r.gen > known.gen || (r.gen === known.gen && (r.updatedAt ?? 0) >= (known.updatedAt ?? 0))) newest.set(r.state.runId, r);
  }
  return { runs: [...newest.values()].map((r) => r.state), markers: markersOf(comments, gh.botLogin), complete };
}
