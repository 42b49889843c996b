// Creating a repository's trigger labels (manifest/trigger-labels.ts) so that people can
// pick them from the label menu. Each is looked at once per process and repository: it
// exists (200), or it is created (404 → POST; a 422 `already_exists` means another
// replica or a person made it meanwhile, which is as good).
import type { TriggerLabel } from '../../manifest/trigger-labels.ts';
import { statusOf, type RepoContext } from './client.ts';

type LabelTarget = Pick<RepoContext, 'octokit' | 'owner' | 'repo'>;

/** Labels done (or in progress) by API URL, `owner/repo` and name, lowercased; a failure is forgotten so that a later look tries again. */
const done = new Map<string, Promise<void>>();

export interface LabelLog {
  info(message: string): void;
  warn(message: string): void;
}

/** Makes sure each label exists; never throws (a label that cannot be made is logged, and the run goes on without it). */
export async function ensureTriggerLabels(gh: LabelTarget, labels: readonly TriggerLabel[], log: LabelLog): Promise<void> {
  await Promise.all(
    labels.map((label) => {
      const key = `${gh.octokit.request.endpoint.DEFAULTS.baseUrl}\0${gh.owner}/${gh.repo}\0${label.name}`.toLowerCase();
      let work = done.get(key);
      if (!work) {
        work = ensureOne(gh, label, log).catch((err: unknown) => {
          done.delete(key);
          log.warn(`could not create the trigger label ${JSON.stringify(label.name)} on ${gh.owner}/${gh.repo}: ${statusOf(err) ?? ''} ${(err as Error).message}`.replace(/\s+/g, ' '));
        });
        done.set(key, work);
      }
      return work;
    }),
  );
}

async function ensureOne(gh: LabelTarget, label: TriggerLabel, log: LabelLog): Promise<void> {
  const o = { owner: gh.owner, repo: gh.repo };
  try {
    await gh.octokit.request('GET /repos/{owner}/{repo}/labels/{name}', { ...o, name: label.name });
    return;
  } catch (err) {
    if (statusOf(err) !== 404) throw err;
  }
  try {
    await gh.octokit.request('POST /repos/{owner}/{repo}/labels', { ...o, name: label.name, color: label.color, description: label.description });
    log.info(`created the trigger label ${JSON.stringify(label.name)} on ${gh.owner}/${gh.repo}`);
  } catch (err) {
    if (!alreadyExists(err)) throw err;
  }
}

function alreadyExists(err: unknown): boolean {
  if (statusOf(err) !== 422) return false;
  const errors = (err as { response?: { data?: { errors?: { code?: string }[] } } }).response?.data?.errors ?? [];
  return errors.some((e) => e.code === 'already_exists');
}
