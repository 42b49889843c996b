// What the Actions runner needs from the rest of the emulator. index.ts adapts the real
// emulator to this; unit tests pass a small fake with a temp bare repo.
import type { JobRecord, RunRecord } from './records.ts';

export type TokenPermissions = Record<string, 'read' | 'write'>;

export interface ActionsHost {
  /** REST base URL without a trailing slash (GITHUB_API_URL). */
  apiUrl: string;
  /** Web base URL without a trailing slash (GITHUB_SERVER_URL, html_url). */
  serverUrl: string;
  /** Path of the repository's bare git directory; throws when there is no such repo. */
  gitDir(owner: string, repo: string): string;
  /**
   * The remote a job's `actions/checkout` sets as `origin`. Defaults to the bare repo
   * path, which bypasses tokens: give a smart-HTTP URL when the emulator serves one.
   */
  cloneUrl?(owner: string, repo: string): string;
  /** Mints the job's GITHUB_TOKEN, able to do only what `permissions` allow. */
  mintToken(owner: string, repo: string, permissions: TokenPermissions): string | Promise<string>;
  /** Called when the job ends: GitHub revokes GITHUB_TOKEN then. */
  revokeToken?(token: string): void;
  /** Delivers a webhook (`workflow_run`, `workflow_job`, `workflow_dispatch`). */
  emit(event: string, payload: Record<string, unknown>): void | Promise<void>;
  /** The full repository object, as webhooks carry it. */
  repository(owner: string, repo: string): Record<string, unknown>;
  /** The installation to name in webhook payloads, when one covers the repository. */
  installation?(owner: string, repo: string): { id: number; node_id: string } | undefined;
  /**
   * Actions' check suite for a new workflow run on `headSha` (the pull request's head for
   * `pull_request`); returns its id, the run's `check_suite_id`. Without it the runner makes
   * up an id and no check runs exist.
   */
  createCheckSuite?(run: RunRecord, headSha: string): number;
  /** A job was queued, started or finished: its check run in the run's suite follows it. */
  jobChanged?(run: RunRecord, job: JobRecord): Promise<void>;
  /** The run (attempt) finished: its check suite completes with the run's conclusion. */
  runChanged?(run: RunRecord): Promise<void>;
  /**
   * What a `pull_request` event a job's GITHUB_TOKEN caused starts (readings.ts,
   * `tokenPullRequestRuns`); without it, nothing.
   */
  tokenPullRequestRuns?(): 'none' | 'action-required';
  /** Whether a run a GITHUB_TOKEN dispatched starts `workflow_run` workflows (readings.ts); default `fires`. */
  workflowRunAfterTokenDispatch?(): 'fires' | 'silent';
  /** Whether a push to a ref outside branches and tags starts `on: push` workflows (readings.ts); default `silent`. */
  customRefPushRuns?(): 'silent' | 'fires';
}
