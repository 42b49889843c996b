// A label step's labels on the run's issue or pull request. GitHub's "add labels to an issue"
// creates any label the repository lacks (github/docs issue #35718: "not only assigns existing
// labels but also creates a new label if it does not already exist"), and the names usually come
// from an agent: so the repository's labels are read first and only those are sent, in the
// repository's own spelling. Names it has no label for are reported, never created. Adding a
// label an issue already has changes nothing, so a redelivered event may do this again.
//
// The door of every label a label step adds, whatever the manifest or the engine asked: none on
// a fork run (an App's label can start a maintainers' `pull_request_target: labeled` job with
// the repository's secrets), and never a label that starts a workflow of the default branch's
// manifests (an agent would start runs at will). The validator refuses both; this holds if a
// manifest got past it.
import type { ApplyLabels, RunEvent } from '../../engine/index.ts';
import { triggerLabels } from '../../manifest/trigger-labels.ts';
import { messageOf, refusedForGood, statusOf, type RepoContext } from './client.ts';
import { defaultBranchHead, loadManifests, validWorkflows } from './manifests.ts';

/** What a run with no thread hears: nothing to put labels on. */
export const NO_THREAD_NOTE = 'not added: the run has no issue or pull request to label';

/** What a fork run hears. */
export const FORK_RUN_NOTE = "not added: a run on a fork's pull request never adds labels";

export async function applyLabels(gh: RepoContext, cmd: ApplyLabels, at: number): Promise<RunEvent[]> {
  const done = (applied: string[], unknown: string[], refused: string[], note?: string): RunEvent[] => [
    { type: 'labels.applied', key: `${cmd.key}/applied`, at, step: cmd.step, applied, unknown, ...(refused.length ? { refused } : {}), ...(note ? { note } : {}) },
  ];
  if (cmd.fork) return done([], [], [], FORK_RUN_NOTE);
  if (!cmd.thread) return done([], [], [], NO_THREAD_NOTE);
  const o = { owner: gh.owner, repo: gh.repo };
  try {
    // The labels that start a workflow now: those of the default branch's manifests (cached by commit).
    const starters = new Set(triggerLabels(validWorkflows(await loadManifests(gh, await defaultBranchHead(gh)))).map((l) => l.name.toLowerCase()));
    // Names are unique without regard to case (GitHub answers `already_exists` to "Bug" next to "bug").
    const own = new Map<string, string>();
    for (const label of await gh.octokit.paginate('GET /repos/{owner}/{repo}/labels', { ...o, per_page: 100 })) own.set(label.name.toLowerCase(), label.name);
    const applied: string[] = [];
    const unknown: string[] = [];
    const refused: string[] = [];
    for (const name of cmd.labels) {
      const spelt = own.get(name.toLowerCase());
      if (starters.has(name.toLowerCase())) refused.push(name);
      else if (spelt === undefined) unknown.push(name);
      else if (!applied.includes(spelt)) applied.push(spelt);
    }
    if (applied.length) await gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { ...o, issue_number: cmd.thread.number, labels: applied });
    return done(applied, unknown, refused);
  } catch (err) {
    // Waiting cures the rest (rate limits, GitHub down): the event is tried again.
    if (!refusedForGood(err)) throw err;
    return [{ type: 'labels.failed', key: `${cmd.key}/failed`, at, step: cmd.step, error: `GitHub refused the labels on #${cmd.thread.number} (${statusOf(err)}): ${messageOf(err)}` }];
  }
}
