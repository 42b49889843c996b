// Actions-only mode: the comments of a run that no job handled. Every event of a run runs in
// one concurrency group, and GitHub keeps at most one running and one pending job per group:
// a newer pending job cancels the older one. A maintainer's `/baton approve` waiting behind a
// running job is so replaced by whatever comes next for the run — a stranger's "+1", a CI
// status, the worker's apply job — and its comment is never handled. So each job of the run
// first reads the run's threads and handles, oldest first, every comment that could move a run
// and that no job handled: a command (approve, cancel, retry) or, while a question is open, an
// answer written after it (a quote-reply of the question or `/baton answer`, decided by
// hosts/github/questions.ts) — from someone with a role the run's workflow listens to (a
// stranger's comments cost nothing here). Every run of the thread is covered: a comment in the
// thread belongs to the run that was the newest when it was posted, a comment on a run's PR
// to that run.
// "Handled" is exact for any number of events: the catch-up goes oldest first, so each comment
// it applies settles every older one meant for the same run, and its event carries its id
// (engine: RunState.commentsUpTo, kept in the signed state). Above that mark, a comment's key
// `comment:<id>` among the run's applied keys, or baton's reply to it (a reply marker carries
// the same key), says a job got to it. Nothing else is stored: a catch-up that crashed is done
// again by the next job.
import { isAllowed, type RunState } from '../engine/index.ts';
import type { Role } from '../manifest/types.ts';
import { onComment } from '../app/handlers/comment.ts';
import type { Log, RunService } from '../app/runs.ts';
import { hasRunningJobs } from '../app/sweep.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { parseCommentCommand } from '../hosts/github/comment-command.ts';
import { byName, loadManifests } from '../hosts/github/manifests.ts';
import { permissionOf } from '../hosts/github/permission.ts';
import { runIdOfPullBody } from '../hosts/github/run-id.ts';
import { answerForm, answersFor, openAsk } from '../hosts/github/questions.ts';
import { readThread, type ThreadRead } from '../hosts/github/thread.ts';
import type { FoundRecord, ThreadComment } from '../record/find.ts';

/** The engine key of a comment in Actions-only mode: the same for its own job and any catch-up. */
export const commentKey = (id: number | string): string => `comment:${id}`;

/** Commands that move a run (help, status, plan and starts only answer or start one). */
const RUN_COMMANDS = new Set(['approve', 'cancel', 'retry']);

/** At most this many comments per job: the next job goes on where this one stopped. */
export const MAX_CATCH_UP = 20;

export interface CatchUp {
  /** The run's home thread (the issue or PR number every run id carries). */
  thread: number;
  /** The comment the job was started for: handled by the job itself. */
  except?: number;
}

export interface CaughtUp {
  /** Comments handled. */
  handled: number;
  /** Whether every comment before the job's own was settled (none left for a later job). */
  complete: boolean;
}

interface Pending {
  number: number;
  comment: ThreadComment;
  run: FoundRecord;
}

/** Handles the comments of the thread's runs that no job handled, oldest first. */
export async function catchUpComments(runs: RunService, gh: RepoContext, c: CatchUp, log: Log): Promise<CaughtUp> {
  const home = await readThread(gh, c.thread);
  const records = home.records.filter((r) => r.state.status !== 'idle');
  const newest = records.at(-1);
  if (!newest) return { handled: 0, complete: true };

  // A comment's own job loads the run only for a command or an answer; a stranger's "+1" that
  // displaced the worker's apply job would then leave the finished worker unheard until the
  // sweep. Looking at the run collects it (runs.ts reconciles a run it loads cold).
  if (c.except !== undefined && hasRunningJobs(newest.state)) await runs.onRun(gh, newest.state.runId, () => [], log, { looksOnly: true });

  const reads = new Map<number, ThreadRead>([[c.thread, home]]);
  const pending: Pending[] = [];
  for (const [i, run] of records.entries()) {
    const state = run.state;
    // In the thread: what was said while this run was the newest. On its PR: all of it.
    const until = records[i + 1]?.commentId ?? Infinity;
    const from = Math.max(run.commentId, state.commentsUpTo ?? 0);
    const threads: Array<{ number: number; until: number }> = [{ number: c.thread, until }];
    if (state.pr && state.pr.number !== c.thread) threads.push({ number: state.pr.number, until: Infinity });
    const applied = new Set(state.appliedKeys);
    const ask = openAsk(state);
    for (const t of threads) {
      if (!reads.has(t.number)) reads.set(t.number, await readThread(gh, t.number));
      const read = reads.get(t.number)!;
      // Answers only to the question that is open now: a remark made before it was asked is none.
      const askedAt = ask ? lastQuestionId(read, gh.botLogin) : undefined;
      for (const comment of read.comments) {
        if (comment.id <= from || comment.id >= t.until || comment.id === c.except) continue;
        if (isBotLogin(comment.author, gh.botLogin) || handled(comment.id, applied, read.markers)) continue;
        const command = parseCommentCommand(comment.body);
        const moves = command && command.kind !== 'answer' ? RUN_COMMANDS.has(command.kind) : askedAt !== undefined && comment.id > askedAt && answers(comment.body, state);
        if (moves) pending.push({ number: t.number, comment, run });
      }
    }
  }
  if (!pending.length) return { handled: 0, complete: true };

  const roles = new Map<string, Role[]>();
  const permissions = new Map<string, Awaited<ReturnType<typeof permissionOf>>>();
  const issues = new Map<number, { title: string; body: string | null; url: string }>();
  let done = 0;
  for (const { number, comment, run } of pending.sort((a, b) => a.comment.id - b.comment.id)) {
    if (done >= MAX_CATCH_UP) return { handled: done, complete: false };
    const state = run.state;
    if (!roles.has(state.runId)) roles.set(state.runId, await rolesOf(gh, state));
    if (!permissions.has(comment.author)) permissions.set(comment.author, await permissionOf(gh, comment.author));
    if (!isAllowed(permissions.get(comment.author)!, roles.get(state.runId)!)) continue;
    if (!issues.has(number)) issues.set(number, await issueOf(gh, number));
    const issue = issues.get(number)!;
    const isPull = number !== c.thread;
    log.info(`catch-up: comment ${comment.id} on #${number} by @${comment.author} for run ${state.runId} was not handled (its job was displaced in the concurrency group); handling it now`);
    await onComment(
      runs,
      gh,
      {
        thread: { number, isPull, title: issue.title, body: issue.body, url: issue.url },
        commentId: comment.id,
        body: comment.body,
        author: comment.author,
        authorIsBot: false,
        // Its body is read now, not as posted: an edited comment is its author's no more (comment.ts).
        createdAt: comment.createdAt ?? NaN,
        updatedAt: comment.updatedAt ?? NaN,
        key: commentKey(comment.id),
        pullRunId: isPull ? runIdOfPullBody(issue.body) : undefined,
        forRun: state.runId,
        settles: comment.id,
      },
      log,
    );
    done++;
  }
  return { handled: done, complete: true };
}

/** Whether a comment answers the run's open question: the same door as the comment's own job (questions.ts). */
function answers(body: string, state: RunState): boolean {
  const form = answerForm(body);
  return form !== undefined && !('none' in answersFor(form, state));
}

function handled(id: number, applied: Set<string>, markers: Set<string>): boolean {
  const key = commentKey(id);
  if (applied.has(key)) return true;
  for (const m of markers) if (m === `baton:reply ${key}` || m.startsWith(`baton:reply ${key}/`)) return true;
  return false;
}

/** Bots may only start runs (docs/manifest.md `on.bots`): none of their comments moves one. */
const isBotLogin = (login: string, botLogin: string) => login.toLowerCase() === botLogin.toLowerCase() || login.endsWith('[bot]');

/** The newest of baton's question comments in a thread (its marker `baton:questions …`). */
function lastQuestionId(read: ThreadRead, botLogin: string): number | undefined {
  let last: number | undefined;
  for (const c of read.comments) {
    if (c.author.toLowerCase() === botLogin.toLowerCase() && /\n<!-- baton:questions [^\s<>]+ -->\s*$/.test(c.body)) last = c.id;
  }
  return last;
}

/** Every role the run's workflow acts for: its `on.roles` and its approve steps' roles. */
async function rolesOf(gh: RepoContext, state: RunState): Promise<Role[]> {
  const found = byName(await loadManifests(gh, state.manifestCommit), state.workflow);
  if (!found) return [];
  const w = found.workflow;
  return [...w.on.roles, ...w.steps.flatMap((s) => (s.kind === 'approve' ? s.roles : []))];
}

async function issueOf(gh: RepoContext, number: number): Promise<{ title: string; body: string | null; url: string }> {
  const res = await gh.octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}', { owner: gh.owner, repo: gh.repo, issue_number: number });
  return { title: res.data.title, body: res.data.body ?? null, url: res.data.html_url };
}
