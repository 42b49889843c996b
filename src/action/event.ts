// The event that started the job: GITHUB_EVENT_NAME and the webhook payload the runner
// saved at GITHUB_EVENT_PATH (the same payload an App would have received).
import { readFileSync } from 'node:fs';

export interface ActionEvent {
  name: string;
  payload: Record<string, unknown>;
  /** GITHUB_RUN_ID-GITHUB_RUN_ATTEMPT: unique per delivery to this workflow, so a key for the engine. */
  id: string;
}

export function readEvent(env: NodeJS.ProcessEnv): ActionEvent {
  const name = env.GITHUB_EVENT_NAME;
  const path = env.GITHUB_EVENT_PATH;
  if (!name || !path) throw new Error('GITHUB_EVENT_NAME and GITHUB_EVENT_PATH are not set: modes run, route and apply run only inside a GitHub Actions job');
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`cannot read the ${name} event payload at ${path}: ${(err as Error).message}`, { cause: err });
  }
  // A re-run of the job is the same delivery: the engine must see the same key.
  return { name, payload, id: `actions:${env.GITHUB_RUN_ID ?? '0'}` };
}

/** The repository the event is about: owner, name, default branch. */
export function repositoryOf(ev: ActionEvent, env: NodeJS.ProcessEnv): { owner: string; repo: string; defaultBranch: string } {
  const r = ev.payload.repository as { name?: string; owner?: { login?: string }; default_branch?: string } | undefined;
  const [envOwner, envRepo] = (env.GITHUB_REPOSITORY ?? '/').split('/');
  const owner = r?.owner?.login ?? envOwner;
  const repo = r?.name ?? envRepo;
  if (!owner || !repo) throw new Error(`the ${ev.name} event names no repository and GITHUB_REPOSITORY is not set`);
  return { owner, repo, defaultBranch: r?.default_branch ?? 'main' };
}
