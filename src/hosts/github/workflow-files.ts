// GitHub's own rule for `.github/workflows/`: writing a workflow file takes the `workflows`
// permission, which baton's App does not ask for (app.yml) and an Actions job's GITHUB_TOKEN
// can never have. What a refusal says depends on who baton writes as, so that its advice is
// one that works in the run's mode: `protected-paths: allow` alone never does for these files.
// Where GitHub's REST API refuses such a change is undocumented: 403 at the tree
// (anthropics/claude-code-action#29), 404 at the commit (octokit/rest.js#368), or 422 at the
// ref; every shape ends as the same refusal (apply.ts for the tree and commit, merge.ts for the ref).
import { messageOf, statusOf, type RepoContext } from './client.ts';

/** GitHub guards this directory: writing it needs the `workflows` permission. */
export const WORKFLOWS_DIR = '.github/workflows';

/** Who baton writes as: the baton App, an App's token in Actions (`--app-token`), or an Actions job's GITHUB_TOKEN. */
export type WritesAs = NonNullable<RepoContext['writesAs']>;

/** The login a GITHUB_TOKEN acts as: the Action's `bot-login` when no App token is given. */
export const GITHUB_TOKEN_LOGIN = 'github-actions[bot]';

/** Statuses GitHub answers a workflow-file change with, by where it refuses it (see above). */
const WORKFLOW_REFUSALS = new Set([403, 404, 422]);

/** The paths under `.github/workflows/` among `paths`. */
export function workflowFiles(paths: readonly string[]): string[] {
  return paths.filter((p) => p.startsWith(`${WORKFLOWS_DIR}/`));
}

/** What it takes, beyond `protected-paths: allow`, for baton to write workflow files in this mode. */
export function workflowFilesRemedy(writesAs: WritesAs): string {
  if (writesAs === 'github-token') {
    return (
      "baton writes with this repository's GITHUB_TOKEN, which can never write workflow files: " +
      'let baton act as a GitHub App that has the `workflows` permission (`baton init --mode actions --app-token`), or commit the workflow change yourself'
    );
  }
  const who =
    writesAs === 'app'
      ? "the baton App (it does not ask for it: add Workflows, read and write, to the App's permissions, then accept the change for the installation)"
      : "the App whose token baton's workflows use (APP_ID)";
  return `GitHub writes workflow files only for a token with the \`workflows\` permission: grant it to ${who}, or commit the workflow change yourself`;
}

/**
 * The message of a merge (a ref update, or the merges API) GitHub refused when `commit` brings
 * workflow files that the run branch's `head` does not have, or undefined. Asks GitHub which
 * files the commit changes only for an answer that may be this rule's.
 */
export async function mergeWorkflowRefusal(gh: RepoContext, head: string, commit: string, err: unknown): Promise<string | undefined> {
  if (!WORKFLOW_REFUSALS.has(statusOf(err) ?? 0)) return undefined;
  const res = await gh.octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', { owner: gh.owner, repo: gh.repo, basehead: `${head}...${commit}` });
  return workflowRefusal(gh, (res.data.files ?? []).map((f) => f.filename), err);
}

/** Who baton writes as in `gh`: the App unless the Actions side said otherwise. */
export const writesAsOf = (gh: Pick<RepoContext, 'writesAs'>): WritesAs => gh.writesAs ?? 'app';

/**
 * The message of a write GitHub refused when it brings workflow files `paths`, or undefined
 * when `err` is not one of the workflow-file refusals (or no workflow file is involved).
 */
export function workflowRefusal(gh: Pick<RepoContext, 'writesAs'>, paths: readonly string[], err: unknown): string | undefined {
  const status = statusOf(err);
  const files = workflowFiles(paths);
  if (!files.length || status === undefined || !WORKFLOW_REFUSALS.has(status)) return undefined;
  return `GitHub refused to write ${files.join(', ')} (${status} ${messageOf(err)}): ${workflowFilesRemedy(writesAsOf(gh))}`;
}
