// A label step's labels on the run's issue or pull request. GitHub's "add labels to an issue"
// creates any label the repository lacks (github/docs issue #35718: "not only assigns existing
// labels but also creates a new label if it does not already exist"), and the names usually come
// from an agent: so the repository's labels are read first and only those are sent, in the
// repository's own spelling. Names it has no label for are reported, never created. Adding a
// label an issue already has changes nothing, so a redelivered event may do this again.
import type { ApplyLabels, RunEvent } from '../../engine/index.ts';
import { messageOf, refusedForGood, statusOf, type RepoContext } from './client.ts';

/** What a run with no thread hears: nothing to put labels on. */
export const NO_THREAD_NOTE = 'not added: the run has no issue or pull request to label';

export async function applyLabels(gh: RepoContext, cmd: ApplyLabels, at: number): Promise<RunEvent[]> {
  const done = (applied: string[], unknown: string[], note?: string): RunEvent[] => [
    { type: 'labels.applied', key: `${cmd.key}/applied`, at, step: cmd.step, applied, unknown, ...(note ? { note } : {}) },
  ];
  if (!cmd.thread) return done([], [], NO_THREAD_NOTE);
  const o = { owner: gh.owner, repo: gh.repo };
  try {
    // Names are unique without regard to case (GitHub answers `already_exists` to "Bug" next to "bug").
    const own = new Map<string, string>();
    for (const label of await gh.octokit.paginate('GET /repos/{owner}/{repo}/labels', { ...o, per_page: 100 })) own.set(label.name.toLowerCase(), label.name);
    const applied: string[] = [];
    const unknown: string[] = [];
    for (const name of cmd.labels) {
      const spelt = own.get(name.toLowerCase());
      if (spelt === undefined) unknown.push(name);
      else if (!applied.includes(spelt)) applied.push(spelt);
    }
    if (applied.length) await gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { ...o, issue_number: cmd.thread.number, labels: applied });
    return done(applied, unknown);
  } catch (err) {
    // Waiting cures the rest (rate limits, GitHub down): the event is tried again.
    if (!refusedForGood(err)) throw err;
    return [{ type: 'labels.failed', key: `${cmd.key}/failed`, at, step: cmd.step, error: `GitHub refused the labels on #${cmd.thread.number} (${statusOf(err)}): ${messageOf(err)}` }];
  }
}
