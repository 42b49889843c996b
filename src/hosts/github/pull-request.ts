// The run's pull request, from the run branch: opened once, updated when its title or
// body changed. baton never merges it.
import type { EnsurePullRequest, RunEvent } from '../../engine/index.ts';
import { inert } from '../../record/inert.ts';
import { ACTIONS_PR_ADVICE, isActionsPrRefusal } from './actions-settings.ts';
import { messageOf, statusOf, type RepoContext } from './client.ts';
import { RefRefused, updateRef } from './git-refs.ts';

/**
 * GitHub refuses draft PRs in private repositories on plans without them (Free, Pro):
 * 422 "Draft pull requests are not supported in this repository." A ready PR is the next
 * best thing; the run says why it is not a draft rather than fail at its last step.
 */
function draftsRefused(err: unknown): boolean {
  return statusOf(err) === 422 && /draft pull requests are not supported/i.test(messageOf(err));
}

export const DRAFTS_REFUSED_NOTE =
  'opened ready for review, not as a draft: GitHub does not support draft pull requests in this repository (a private repository needs GitHub Team or Enterprise Cloud for them)';

export async function ensurePullRequest(gh: RepoContext, cmd: EnsurePullRequest, at: number): Promise<RunEvent[]> {
  if (cmd.pushToHead !== undefined) return pushToHead(gh, cmd, cmd.pushToHead, at);
  const o = { owner: gh.owner, repo: gh.repo };
  // The body quotes the issue and agents' notes: inert, as in every body baton's bot writes.
  const body = inert(cmd.body);
  let note: string | undefined;
  try {
    const open = await gh.octokit.request('GET /repos/{owner}/{repo}/pulls', { ...o, head: `${gh.owner}:${cmd.head}`, state: 'open', per_page: 10 });
    let pr = open.data.find((p) => p.head.ref === cmd.head);
    if (pr) {
      if (pr.title !== cmd.title || (pr.body ?? '') !== body) {
        pr = (await gh.octokit.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { ...o, pull_number: pr.number, title: cmd.title, body })).data as typeof pr;
      }
    } else {
      const create = (draft: boolean) => gh.octokit.request('POST /repos/{owner}/{repo}/pulls', { ...o, head: cmd.head, base: cmd.base, title: cmd.title, body, draft });
      try {
        pr = (await create(cmd.draft)).data as unknown as typeof pr;
      } catch (err) {
        if (!cmd.draft || !draftsRefused(err)) throw err;
        pr = (await create(false)).data as unknown as typeof pr;
        note = DRAFTS_REFUSED_NOTE;
      }
      if (cmd.labels.length) await gh.octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/labels', { ...o, issue_number: pr!.number, labels: cmd.labels });
    }
    return [{ type: 'pull-request.ensured', key: `${cmd.key}/ensured`, at, step: cmd.step, number: pr!.number, url: pr!.html_url, ...(note ? { note } : {}) }];
  } catch (err) {
    const status = statusOf(err);
    if (status === undefined || status >= 500) throw err;
    const message = messageOf(err);
    // The run ends saying which setting to change; after that, `/baton retry <step>` opens it.
    const advice = isActionsPrRefusal(status, message) ? ` — ${ACTIONS_PR_ADVICE} Once it is on, \`/baton retry ${cmd.step}\` opens the pull request.` : '';
    return [{ type: 'pull-request.failed', key: `${cmd.key}/failed`, at, step: cmd.step, error: `opening the pull request from ${cmd.head} into ${cmd.base} failed (${status}): ${message}${advice}` }];
  }
}

/**
 * `on.pull_request.push-to-head`: the run's commits go onto the pull request's own branch, as a
 * fast-forward only (`force: false`: GitHub answers 422 "Update is not a fast forward" when
 * someone pushed to it meanwhile, and nothing of theirs is lost). Only a branch of this
 * repository, of the pull request the run is bound to, and only while it is open — and never the
 * default branch or a protected one, whatever the pull request (the ref door, git-refs.ts).
 */
async function pushToHead(gh: RepoContext, cmd: EnsurePullRequest, number: number, at: number): Promise<RunEvent[]> {
  const o = { owner: gh.owner, repo: gh.repo };
  const failed = (why: string): RunEvent[] => [{ type: 'pull-request.failed', key: `${cmd.key}/failed`, at, step: cmd.step, error: `nothing was pushed to pull request #${number}: ${why}; the run's commits stay on ${cmd.head}` }];
  try {
    const pull = (await gh.octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', { ...o, pull_number: number })).data;
    if (pull.state !== 'open') return failed('it is closed');
    if (pull.head.repo?.full_name?.toLowerCase() !== `${gh.owner}/${gh.repo}`.toLowerCase() || pull.head.ref !== cmd.base) return failed('its branch is not the one the run started from, in this repository');
    const head = (await gh.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { ...o, ref: `heads/${cmd.head}` })).data.object.sha;
    const done = (note: string): RunEvent[] => [{ type: 'pull-request.ensured', key: `${cmd.key}/ensured`, at, step: cmd.step, number, url: pull.html_url, note }];
    if (pull.head.sha === head) return done(`nothing new to push to #${number}`);
    await updateRef(gh, `heads/${cmd.base}`, head, false, { branch: cmd.base, pull: number });
    return done(`pushed to the branch of #${number}`);
  } catch (err) {
    // The ref door's refusal (git-refs.ts): the default branch, a protected branch.
    if (err instanceof RefRefused) return failed(err.message);
    const status = statusOf(err);
    if (status === undefined || status >= 500) throw err;
    return failed(status === 422 ? `its branch moved on since the run started (${messageOf(err)})` : `GitHub answered ${status}: ${messageOf(err)}`);
  }
}
