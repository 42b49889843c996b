// Actions records → GitHub's JSON, for REST answers and webhook payloads alike. The
// webhook schemas forbid extra properties, so every object here carries exactly the
// fields both descriptions know; nested repositories and users are cut down to the
// fields of `repository-lite` / `minimal-repository` and `user` / `simple-user`.
import type { ActionsHost } from './host.ts';
import type { ArtifactRecord, JobRecord, RunRecord, StepRecord, WorkflowRecord } from './records.ts';

/** Fields shared by webhook `repository-lite` and REST `minimal-repository` (all required in both). */
const REPO_LITE_KEYS = [
  'archive_url', 'assignees_url', 'blobs_url', 'branches_url', 'collaborators_url', 'comments_url', 'commits_url',
  'compare_url', 'contents_url', 'contributors_url', 'deployments_url', 'description', 'downloads_url', 'events_url',
  'fork', 'forks_url', 'full_name', 'git_commits_url', 'git_refs_url', 'git_tags_url', 'hooks_url', 'html_url', 'id',
  'issue_comment_url', 'issue_events_url', 'issues_url', 'keys_url', 'labels_url', 'languages_url', 'merges_url',
  'milestones_url', 'name', 'node_id', 'notifications_url', 'owner', 'private', 'pulls_url', 'releases_url',
  'stargazers_url', 'statuses_url', 'subscribers_url', 'subscription_url', 'tags_url', 'teams_url', 'trees_url', 'url',
];

/** Fields of webhook `user` that REST `simple-user` also has. */
const USER_KEYS = [
  'login', 'id', 'node_id', 'avatar_url', 'gravatar_id', 'url', 'html_url', 'followers_url', 'following_url',
  'gists_url', 'starred_url', 'subscriptions_url', 'organizations_url', 'repos_url', 'events_url',
  'received_events_url', 'type', 'site_admin',
];

function pick(obj: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (k in obj) out[k] = obj[k];
  return out;
}

export function userLite(user: Record<string, unknown>): Record<string, unknown> {
  return pick(user, USER_KEYS);
}

export function repositoryLite(repo: Record<string, unknown>): Record<string, unknown> {
  const lite = pick(repo, REPO_LITE_KEYS);
  if (lite.owner && typeof lite.owner === 'object') lite.owner = userLite(lite.owner as Record<string, unknown>);
  return lite;
}

function nodeId(prefix: string, id: number): string {
  return `${prefix}_${Buffer.from(`emu:${id}`).toString('base64url')}`;
}

export class ActionsShapes {
  constructor(private readonly host: ActionsHost) {}

  private repoApi(owner: string, repo: string): string {
    return `${this.host.apiUrl}/repos/${owner}/${repo}`;
  }

  private repoWeb(owner: string, repo: string): string {
    return `${this.host.serverUrl}/${owner}/${repo}`;
  }

  workflow(wf: WorkflowRecord, defaultBranch: string) {
    return {
      id: wf.id,
      node_id: nodeId('W', wf.id),
      name: wf.name,
      path: wf.path,
      state: 'active',
      created_at: wf.createdAt,
      updated_at: wf.updatedAt,
      url: `${this.repoApi(wf.owner, wf.repo)}/actions/workflows/${wf.id}`,
      html_url: `${this.repoWeb(wf.owner, wf.repo)}/blob/${defaultBranch}/${wf.path}`,
      badge_url: `${this.repoWeb(wf.owner, wf.repo)}/workflows/${encodeURIComponent(wf.name)}/badge.svg`,
    };
  }

  runUrl(run: RunRecord): string {
    return `${this.repoApi(run.owner, run.repo)}/actions/runs/${run.id}`;
  }

  runHtml(run: RunRecord): string {
    return `${this.repoWeb(run.owner, run.repo)}/actions/runs/${run.id}`;
  }

  /** A workflow run as both `GET /actions/runs/{id}` and the `workflow_run` webhook carry it. */
  run(run: RunRecord, headCommit: Record<string, unknown>) {
    const url = this.runUrl(run);
    const api = this.repoApi(run.owner, run.repo);
    const repository = repositoryLite(this.host.repository(run.owner, run.repo));
    const actor = userLite(run.actor);
    return {
      id: run.id,
      name: run.workflowName,
      node_id: nodeId('WFR', run.id),
      check_suite_id: run.checkSuiteId,
      check_suite_node_id: nodeId('CS', run.checkSuiteId),
      head_branch: run.headBranch,
      head_sha: run.pullHeadSha ?? run.headSha,
      path: run.path,
      run_number: run.runNumber,
      run_attempt: run.runAttempt,
      referenced_workflows: [],
      event: run.event,
      status: run.status,
      conclusion: run.conclusion,
      workflow_id: run.workflowId,
      url,
      html_url: this.runHtml(run),
      pull_requests: [],
      created_at: run.createdAt,
      updated_at: run.updatedAt,
      actor,
      triggering_actor: actor,
      run_started_at: run.runStartedAt,
      jobs_url: `${url}/jobs`,
      logs_url: `${url}/logs`,
      check_suite_url: `${api}/check-suites/${run.checkSuiteId}`,
      artifacts_url: `${url}/artifacts`,
      cancel_url: `${url}/cancel`,
      rerun_url: `${url}/rerun`,
      previous_attempt_url: run.runAttempt > 1 ? `${url}/attempts/${run.runAttempt - 1}` : null,
      workflow_url: `${api}/actions/workflows/${run.workflowId}`,
      head_commit: headCommit,
      repository,
      head_repository: run.headRepository ? repositoryLite(run.headRepository) : repository,
      display_title: run.displayTitle,
    };
  }

  /** A job as both `GET /actions/jobs/{id}` and the `workflow_job` webhook carry it. */
  job(run: RunRecord, job: JobRecord) {
    const api = this.repoApi(run.owner, run.repo);
    return {
      id: job.id,
      run_id: run.id,
      run_url: this.runUrl(run),
      run_attempt: job.runAttempt,
      node_id: nodeId('CR', job.id),
      head_sha: run.pullHeadSha ?? run.headSha,
      url: `${api}/actions/jobs/${job.id}`,
      html_url: `${this.runHtml(run)}/job/${job.id}`,
      status: job.status,
      conclusion: job.conclusion,
      created_at: job.createdAt,
      started_at: job.startedAt,
      completed_at: job.completedAt,
      name: job.name,
      steps: job.steps.map((s) => this.step(s)),
      check_run_url: `${api}/check-runs/${job.checkRunId ?? job.id}`,
      labels: job.labels,
      runner_id: job.runnerId,
      runner_name: job.runnerName,
      runner_group_id: job.runnerId === null ? null : 0,
      runner_group_name: job.runnerId === null ? null : 'GitHub Actions',
      workflow_name: run.workflowName,
      head_branch: run.headBranch,
    };
  }

  private step(s: StepRecord) {
    return { name: s.name, status: s.status, conclusion: s.conclusion, number: s.number, started_at: s.startedAt, completed_at: s.completedAt };
  }

  artifact(a: ArtifactRecord, repositoryId: number) {
    const url = `${this.repoApi(a.owner, a.repo)}/actions/artifacts/${a.id}`;
    return {
      id: a.id,
      node_id: nodeId('MDg6QXJ0aWZhY3Q', a.id),
      name: a.name,
      size_in_bytes: a.zip.length,
      url,
      archive_download_url: `${url}/zip`,
      expired: false,
      created_at: a.createdAt,
      expires_at: a.expiresAt,
      updated_at: a.createdAt,
      digest: a.digest,
      workflow_run: { id: a.runId, repository_id: repositoryId, head_repository_id: repositoryId, head_branch: a.headBranch, head_sha: a.headSha },
    };
  }
}
