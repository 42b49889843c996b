// The MCP tools against GitHub. Starting, answering, approving and cancelling are
// comments posted as the user (their token), so the App's permission checks and the
// thread's audit trail apply exactly as if they had typed them. Reading parses the
// status comment, trusting only one written by the App's bot.
import { Octokit } from '@octokit/rest';
import { loadWorkflowText } from '../manifest/load.ts';
import { findRecords, type FoundRecord } from '../record/find.ts';
import { SCHEDULE_PREFIX } from '../hosts/github/schedule-claims.ts';
import { RESULT_ARTIFACT } from '../agents/result.ts';
import { downloadResult } from '../hosts/github/apply.ts';
import { WorkerRunGone } from '../hosts/github/worker-run.ts';
import { viewOfState, type RunView } from './summary.ts';
import { fencedView } from './fenced-view.ts';
import { ToolError } from './target.ts';
import { saidSkips, type SaidSkip } from '../hosts/github/skip-notices.ts';
import type { Json } from '../engine/index.ts';

export interface GitHubTarget {
  owner: string;
  repo: string;
  number: number | null;
}

const WORKFLOWS_DIR = '.agents/workflows';

export class GitHubRuns {
  private client: Octokit | null = null;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  private get botLogin(): string {
    return this.env.BATON_APP_LOGIN || 'baton[bot]';
  }

  private octokit(): Octokit {
    if (this.client) return this.client;
    const token = this.env.GITHUB_TOKEN || this.env.GH_TOKEN;
    if (!token) throw new ToolError('set GITHUB_TOKEN (or GH_TOKEN) to a token that can read and comment on the repository to use a GitHub target (and GITHUB_API_URL for GitHub Enterprise Server, e.g. https://HOST/api/v3)');
    // A failed request becomes one ToolError saying what to fix; Octokit's own line for it would only repeat it.
    const quiet = (): void => {};
    this.client = new Octokit({ auth: token, baseUrl: this.env.GITHUB_API_URL || 'https://api.github.com', request: { retries: 0 }, log: { debug: quiet, info: quiet, warn: console.warn, error: quiet } });
    return this.client;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      const e = err as { status?: number; message: string };
      const hint = e.status === 401 ? ' (GITHUB_TOKEN is not valid)' : e.status === 403 ? ' (the token lacks the permission)' : e.status === 404 ? ' (no such repository, issue or file, or the token cannot see it)' : '';
      throw new ToolError(`GitHub refused to ${what}: ${e.status ?? ''} ${e.message}${hint}`.replace(/\s+/g, ' '));
    }
  }

  async workflowFiles(t: GitHubTarget): Promise<{ name: string; path: string; text: string }[]> {
    const gh = this.octokit();
    const { data } = await this.call(`list ${WORKFLOWS_DIR} of ${t.owner}/${t.repo}`, () => gh.repos.getContent({ owner: t.owner, repo: t.repo, path: WORKFLOWS_DIR }));
    const entries = Array.isArray(data) ? data.filter((e) => e.type === 'file' && /\.ya?ml$/.test(e.name)) : [];
    const out: { name: string; path: string; text: string }[] = [];
    for (const e of entries) {
      const { data: file } = await this.call(`read ${e.path}`, () => gh.repos.getContent({ owner: t.owner, repo: t.repo, path: e.path }));
      const text = !Array.isArray(file) && 'content' in file && typeof file.content === 'string' ? Buffer.from(file.content, 'base64').toString('utf8') : '';
      out.push({ name: e.name.replace(/\.ya?ml$/, ''), path: e.path, text });
    }
    return out;
  }

  /** The schedules' claim refs (hosts/github/schedule-claims.ts): one listing for every schedule of the repository. */
  async scheduleClaims(t: GitHubTarget): Promise<Array<{ ref: string }>> {
    const gh = this.octokit();
    const refs = await this.call(`list the refs under ${SCHEDULE_PREFIX} of ${t.owner}/${t.repo}`, () =>
      gh.paginate('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { owner: t.owner, repo: t.repo, ref: SCHEDULE_PREFIX.slice('refs/'.length), per_page: 100 }),
    );
    return (refs as Array<{ ref: string }>).map((r) => ({ ref: r.ref }));
  }

  async listWorkflows(t: GitHubTarget): Promise<{ name: string; description: string | null; source: string; file: string; inputs: Record<string, unknown> }[]> {
    return (await this.workflowFiles(t)).map((f) => {
      const r = loadWorkflowText(f.path, f.text);
      const wf = r.loaded?.workflow;
      return { name: wf?.name ?? f.name, description: wf ? (wf.description ?? null) : 'invalid (see baton_validate)', source: 'repository', file: f.path, inputs: (wf?.inputs ?? {}) as Record<string, unknown> };
    });
  }

  async validate(t: GitHubTarget): Promise<{ valid: boolean; files: { file: string; valid: boolean; errors: string[] }[] }> {
    const files = (await this.workflowFiles(t)).map((f) => {
      const r = loadWorkflowText(f.path, f.text);
      return { file: f.path, valid: r.valid, errors: r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`) };
    });
    if (!files.length) throw new ToolError(`${t.owner}/${t.repo} has no workflow files in ${WORKFLOWS_DIR}/ on its default branch`);
    return { valid: files.every((f) => f.valid), files };
  }

  async comment(t: GitHubTarget, number: number, body: string): Promise<{ commentId: number; url: string }> {
    const gh = this.octokit();
    const { data } = await this.call(`comment on #${number}`, () => gh.issues.createComment({ owner: t.owner, repo: t.repo, issue_number: number, body }));
    return { commentId: data.id, url: data.html_url };
  }

  /**
   * Refuses a number that is not a pull request: issues and pull requests share numbers, and a
   * `/baton` comment lands on either, so a run meant for a pull request would otherwise start
   * on an issue (bound to no head, reviewing nothing).
   */
  async assertPullRequest(t: GitHubTarget, number: number): Promise<void> {
    const gh = this.octokit();
    const { data } = await this.call(`read #${number}`, () => gh.issues.get({ owner: t.owner, repo: t.repo, issue_number: number }));
    if (!data.pull_request) {
      throw new ToolError(`${t.owner}/${t.repo}#${number} is an issue, not a pull request: pass it as \`number\` to start the run on the issue, or give the pull request's number as \`pr\``);
    }
  }

  startCommand(workflow: string, inputs: Record<string, Json>): string {
    const words = Object.entries(inputs).map(([k, v]) => {
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      return /^[^\s"']+$/.test(text) ? `${k}=${text}` : `${k}="${text.replace(/(["\\])/g, '\\$1')}"`;
    });
    return ['/baton', workflow, ...words].join(' ');
  }

  /** The trusted records on the thread (oldest first), and why any look-alike was not trusted. */
  async records(t: GitHubTarget, number: number): Promise<{ records: FoundRecord[]; ignored: string[]; skips: SaidSkip[] }> {
    const gh = this.octokit();
    const comments = await this.call(`read the comments of #${number}`, () => gh.paginate(gh.issues.listComments, { owner: t.owner, repo: t.repo, issue_number: number, per_page: 100 }));
    // The App's own reader: one trust rule (author, marker first, one block last, hash or HMAC).
    const thread = comments.map((c) => ({ id: Number(c.id), body: c.body ?? '', author: c.user?.login ?? '', url: c.html_url }));
    // Without BATON_STATE_SECRET the server cannot check the App's signature; it only shows runs, so it reads them marked unverified.
    const found = findRecords(thread, this.botLogin, this.env.BATON_STATE_SECRET || undefined, { unsignedRead: true });
    const urls = new Map(thread.map((c) => [c.id, c.url]));
    const ignored = found.ignored.map((i) => `comment ${urls.get(i.commentId) ?? i.commentId} by @${i.author || 'unknown'} looks like a baton status comment but is not trusted: ${i.problem}; ignored`);
    // One entry per run (a later record of the same run replaces an earlier one, in its place).
    const byRun = new Map<string, FoundRecord>();
    for (const r of found.records) byRun.set(r.state.runId, r);
    // What baton said did not run here: a schedule's ticks, starts refused by the day's budget, deadlines passed.
    return { records: [...byRun.values()], ignored, skips: saidSkips(thread, this.botLogin) };
  }

  /** Status comments on the thread: the bot's with a valid state block; others are reported, not trusted. */
  async runs(t: GitHubTarget, number: number): Promise<{ runs: RunView[]; ignored: string[] }> {
    const { records, ignored } = await this.records(t, number);
    return { runs: records.map((r) => this.view(r)), ignored };
  }

  private view(r: FoundRecord): RunView {
    return { ...fencedView(viewOfState(r.state)), url: r.url ?? '', ...(r.unverified ? { unverified: 'signed by the App with a key this server does not hold (set BATON_STATE_SECRET to check it)' } : {}) };
  }

  /** One run's record: `runId`, or the newest on the thread. */
  async record(t: GitHubTarget, number: number, runId?: string): Promise<FoundRecord & { ignored: string[]; skips: SaidSkip[] }> {
    const { records, ignored, skips } = await this.records(t, number);
    const found = runId ? records.find((r) => r.state.runId === runId) : records.at(-1);
    if (!found) {
      const why = ignored.length ? ` (${ignored.join('; ')})` : '';
      // Nothing ran here, and baton said why (a start refused by the day's budget…).
      if (!runId && skips.length) throw new NothingRan(`no run on ${t.owner}/${t.repo}#${number}; baton said:\n${skips.map((k) => `  ${k.text} (${k.url})`).join('\n')}`, skips);
      throw new ToolError(
        runId
          ? `no run \`${runId}\` on ${t.owner}/${t.repo}#${number}; runs there: ${records.map((r) => r.state.runId).join(', ') || 'none'}${why}`
          : `no baton status comment from ${this.botLogin} on ${t.owner}/${t.repo}#${number} yet: the App has not picked the run up (is it installed, and did the start comment name a workflow?)${why}`,
      );
    }
    return { ...found, ignored, skips };
  }

  /**
   * What a worker run left to read: the agent's transcript from its result artifact, or,
   * when it uploaded none (a job that broke before the upload, an expired artifact), the
   * log of each of its jobs.
   */
  async workerOutput(t: GitHubTarget, workflowRunId: number): Promise<{ kind: 'transcript' | 'job-log'; text: string; note?: string }> {
    const gh = this.octokit();
    let note: string | undefined;
    try {
      const bundle = await downloadResult({ octokit: gh, owner: t.owner, repo: t.repo }, workflowRunId);
      if (bundle) return { kind: 'transcript', text: bundle.transcript };
      note = `worker run ${workflowRunId} uploaded no ${RESULT_ARTIFACT} artifact (or it expired)`;
    } catch (err) {
      if (err instanceof WorkerRunGone) throw new ToolError(err.message);
      const status = (err as { status?: number }).status;
      if (status === 401 || status === 403) return this.call(`read the artifacts of worker run ${workflowRunId}`, () => Promise.reject(err));
      note = `the ${RESULT_ARTIFACT} artifact of worker run ${workflowRunId} could not be read: ${(err as Error).message}`;
    }
    const jobs = await this.call(`list the jobs of worker run ${workflowRunId}`, () => gh.paginate(gh.actions.listJobsForWorkflowRun, { owner: t.owner, repo: t.repo, run_id: workflowRunId, per_page: 100 }));
    const parts: string[] = [];
    for (const job of jobs) {
      const log = await this.call(`read the log of job ${job.id}`, () => gh.actions.downloadJobLogsForWorkflowRun({ owner: t.owner, repo: t.repo, job_id: job.id }));
      const text = typeof log.data === 'string' ? log.data : Buffer.from(log.data as ArrayBuffer).toString('utf8');
      parts.push(`=== job ${job.name} (${job.conclusion ?? job.status}) ===`, text.replace(/\n$/, ''));
    }
    return { kind: 'job-log', text: parts.join('\n'), ...(note ? { note } : {}) };
  }

  async get(t: GitHubTarget, number: number, runId?: string): Promise<RunView & { ignored: string[] }> {
    const { ignored, ...found } = await this.record(t, number, runId);
    return { ...this.view(found), ignored };
  }
}

/** A thread with no run on it where baton said why something did not run: not an error to fix, an answer. */
export class NothingRan extends ToolError {
  constructor(
    message: string,
    readonly skips: SaidSkip[],
  ) {
    super(message);
  }
}
