// One worker attempt of a local run: a fresh worktree at the attempt's base, `runWorker`
// in it, and its changed files committed on the step branch. The commit is the result's
// `commit` (or, for an attempt that crashed or timed out, the `checkpoint` of its partial
// work). Returns the events to report; the caller records them.
import { join } from 'node:path';
import type { DispatchWorker, RunEvent, Usage } from '../../engine/index.ts';
import { WorkerSetupError } from '../../agents/preflight.ts';
import { runWorker } from '../../agents/worker.ts';
import { addWorktree, commitPaths, git, removeWorktree, revParse, setBranch } from './git.ts';
import { worktreesDir, type RunStore } from './store.ts';

/** Longest diff put into a reviewer's prompt; beyond it the reviewer reads the branch itself. */
const MAX_REVIEW_DIFF = 120_000;

export interface JobContext {
  store: RunStore;
  repo: string;
  env: NodeJS.ProcessEnv;
  /** Where a review's diff starts: the commit the run started from, or a pull request's merge base. */
  reviewFrom: string;
  signal: AbortSignal;
}

export const attemptName = (task: DispatchWorker): string =>
  `${task.step}${task.slot === '0' ? '' : `-${task.slot}`}-a${task.attempt}`;

export async function runJob(task: DispatchWorker, ctx: JobContext): Promise<RunEvent[]> {
  const ref = { step: task.step, slot: task.slot, attempt: task.attempt };
  const key = `${task.key}/result`;
  const path = join(worktreesDir(ctx.repo, task.runId), attemptName(task));
  try {
    addWorktree(ctx.repo, path, task.base);
  } catch (err) {
    return [{ type: 'worker.failed', key, at: Date.now(), ...ref, reason: 'dispatch-failed', error: (err as Error).message }];
  }
  try {
    const prompt = task.kind === 'review' && task.prompt !== null ? withDiff(task.prompt, ctx.repo, ctx.reviewFrom, task.base) : task.prompt;
    let run;
    try {
      run = await runWorker({ ...task, prompt }, { cwd: path, env: ctx.env, signal: ctx.signal, place: 'local' });
    } catch (err) {
      if (!(err instanceof WorkerSetupError)) throw err;
      return [{ type: 'worker.failed', key, at: Date.now(), ...ref, reason: 'dispatch-failed', error: err.message, ...(err.infrastructure && { infrastructure: err.infrastructure }) }];
    }
    const { result } = run;
    ctx.store.write(`workers/${attemptName(task)}.log`, `${run.prompt}\n\n=== transcript ===\n${run.transcript}\n`);
    const usage: Usage = result.usage;
    const sandbox = result.sandbox ? { sandbox: result.sandbox } : {};
    const paths = result.changes.map((c) => c.path);
    const commit = (why: string): string | null => {
      if (!task.writes || !task.branch || paths.length === 0) return null;
      const sha = commitPaths(path, paths, `baton ${task.runId}: ${task.step}${task.slot === '0' ? '' : ` [${task.slot}]`} attempt ${task.attempt}${why}`);
      setBranch(ctx.repo, task.branch, sha);
      return sha;
    };
    if (result.status === 'succeeded') {
      return [{ type: 'worker.finished', key, at: Date.now(), ...ref, outputs: result.outputs, commit: commit(''), usage, ...sandbox }];
    }
    if (result.status === 'invalid-output') {
      return [{ type: 'worker.failed', key, at: Date.now(), ...ref, reason: 'crashed', error: result.error ?? 'no valid result', checkpoint: commit(' (invalid result)'), usage, ...sandbox }];
    }
    const reason = ctx.signal.aborted ? 'cancelled' : result.status;
    const infrastructure = reason === 'crashed' && result.infrastructure ? { infrastructure: result.infrastructure } : {};
    const checkpoint = commit(` (${result.status}, partial work)`);
    // Kept only when read back: the step branch holds the commit (engine/kept.ts says so in the record).
    const held = checkpoint !== null && revParse(ctx.repo, `refs/heads/${task.branch}`) === checkpoint;
    const kept = held ? { ...(result.limit && { limit: result.limit }), kept: paths } : {};
    return [{ type: 'worker.failed', key, at: Date.now(), ...ref, reason, error: result.error ?? result.status, checkpoint: held ? checkpoint : null, usage, ...kept, ...infrastructure, ...sandbox }];
  } finally {
    removeWorktree(ctx.repo, path);
  }
}

/** A reviewer reads the run's changes: the diff from the run's start to the commit it reviews. */
function withDiff(prompt: string, repo: string, from: string, to: string): string {
  const diff = git(repo, ['diff', '--no-color', '--stat', '--patch', from, to]);
  const shown = diff.length > MAX_REVIEW_DIFF ? `${diff.slice(0, MAX_REVIEW_DIFF)}\n… (diff cut at ${MAX_REVIEW_DIFF} characters; read the rest in the working tree)` : diff;
  return `${prompt}\n\nThe diff (${from.slice(0, 12)}..${to.slice(0, 12)}):\n\n\`\`\`diff\n${shown || '(no changes)'}\n\`\`\``;
}
