// LocalHost: the engine's commands carried out on a local checkout. Workers run in the
// background (fan-outs run in parallel) and report through `next()`; everything else is
// done at once and its follow-up events are recorded before they are returned.
import { relative } from 'node:path';
import type { ApplyLabels, Command, DispatchWorker, EnsurePullRequest, PostReview, RunEvent, RunState } from '../../engine/index.ts';
import type { Workflow } from '../../manifest/types.ts';
import { renderRecord } from '../../record/render.ts';
import type { HostPort } from '../driver.ts';
import { branchExists, pushRemote, removeWorktree, setBranch } from './git.ts';
import { runJob } from './jobs.ts';
import { mergeStep } from './merge.ts';
import { readBackEvent, readLocal } from './read-back.ts';
import { renderLocalReview } from './review.ts';
import { worktreesDir, type RunStore } from './store.ts';

export interface HostEvents {
  /** The state was saved (progress display). */
  saved(state: RunState): void;
  /** Something to tell the person: a reply, the pull-request line. */
  say(text: string): void;
}

interface Inflight {
  controller: AbortController;
  done: Promise<{ key: string; events: RunEvent[] }>;
}

export class LocalHost implements HostPort {
  readonly inflight = new Map<string, Inflight>();
  /** The `gh pr create` line, once a pull-request step ran. */
  prCommand: string | null = null;

  constructor(
    readonly store: RunStore,
    readonly repo: string,
    /** Where a reviewer's diff starts (LocalRun.reviewFrom). */
    readonly reviewFrom: string,
    readonly env: NodeJS.ProcessEnv,
    readonly on: HostEvents,
  ) {}

  async save(state: RunState, workflow: Workflow, opts: { render: boolean }): Promise<void> {
    this.store.saveState(state, opts.render ? renderRecord(state, workflow) : null);
    this.on.saved(state);
  }

  async execute(command: Command, state: RunState): Promise<RunEvent[]> {
    switch (command.type) {
      case 'create-run-branch':
        // Reused when it exists: a resumed run must not move it back to the base.
        if (!branchExists(this.repo, command.branch)) setBranch(this.repo, command.branch, command.sha);
        return [];
      case 'dispatch-worker':
        this.dispatch(command);
        return [];
      case 'cancel-worker': {
        const key = `${command.runId}/${command.step}/${command.slot}/${command.attempt}`;
        this.inflight.get(key)?.controller.abort('the run no longer needs this attempt');
        return [];
      }
      case 'merge-step-branch':
        return this.record(mergeStep(command, this.repo));
      case 'ensure-pull-request':
        return this.record(this.pullRequest(command));
      case 'apply-labels':
        return this.record(this.labels(command));
      case 'read-back':
        return this.record([readBackEvent(command, readLocal(this.repo, this.store.dir, command.deliverable))]);
      case 'reply':
        this.on.say(command.body);
        return [];
      case 'finish-run':
        this.cleanup(state.runId);
        return [];
      // Check runs and the CI dispatch exist only on GitHub; the record and the state hold
      // the same information locally. Questions are asked by the runner.
      case 'post-review':
        // Locally the review of the run's own changes is the reviewer's outputs in the record. A
        // step that waits for its review to be posted (a run bound to a pull request: a local
        // branch) gets it shown here and written to the record; its link is that file.
        if (!command.confirm) return [];
        return this.record([this.postReview(command, state)]);
      // Nothing reported before a local gate waits (its checks run then: run.ts, checks.ts): no read.
      case 'check-run':
      case 'post-questions':
      case 'dispatch-checks-workflow':
      case 'read-checks':
      case 'render-record':
        return [];
    }
  }

  /** Events produced here are recorded before the engine sees them. */
  record(events: RunEvent[]): RunEvent[] {
    for (const e of events) this.store.append(e);
    return events;
  }

  dispatch(task: DispatchWorker): void {
    if (this.inflight.has(task.key)) return;
    const controller = new AbortController();
    const done = runJob(task, { store: this.store, repo: this.repo, env: this.env, reviewFrom: this.reviewFrom, signal: controller.signal })
      .catch((err: unknown): RunEvent[] => [
        { type: 'worker.failed', key: `${task.key}/result`, at: Date.now(), step: task.step, slot: task.slot, attempt: task.attempt, reason: 'crashed', error: `baton could not run the worker: ${(err as Error).message}` },
      ])
      .then((events) => ({ key: task.key, events }));
    this.inflight.set(task.key, { controller, done });
  }

  /** Waits for the next worker to finish; its events are not recorded yet (the runner does it). */
  async next(wake: Promise<void>): Promise<RunEvent[]> {
    const first = await Promise.race([...[...this.inflight.values()].map((j) => j.done), wake.then(() => null)]);
    if (first === null) return [];
    this.inflight.delete(first.key);
    return first.events;
  }

  abortAll(reason: string): void {
    for (const j of this.inflight.values()) j.controller.abort(reason);
  }

  async settle(): Promise<void> {
    await Promise.all([...this.inflight.values()].map((j) => j.done));
    this.inflight.clear();
  }

  /**
   * Locally the run branch is the result: write the PR body, and the line that pushes the
   * branch and opens the PR with `gh` (a PR needs its head branch on GitHub first).
   */
  private pullRequest(cmd: EnsurePullRequest): RunEvent[] {
    const bodyFile = this.store.write('pull-request.md', `${cmd.body}\n`);
    const words = ['gh', 'pr', 'create', '--head', cmd.head, '--base', cmd.base, '--title', cmd.title, '--body-file', bodyFile];
    if (cmd.draft) words.push('--draft');
    for (const l of cmd.labels) words.push('--label', l);
    const push = ['git', 'push', '-u', pushRemote(this.repo, cmd.base), cmd.head];
    this.prCommand = `${push.map(shellQuote).join(' ')} && ${words.map(shellQuote).join(' ')}`;
    this.store.write('pull-request.sh', `${this.prCommand}\n`);
    return [{ type: 'pull-request.ensured', key: `${cmd.key}/result`, at: Date.now(), step: cmd.step, number: 0, url: `branch ${cmd.head}` }];
  }

  private postReview(cmd: PostReview, state: RunState): RunEvent {
    const pr = state.context.pr as { head?: unknown; base?: unknown } | null;
    const what = typeof pr?.head === 'string' ? `branch ${pr.head}${typeof pr.base === 'string' ? ` (into ${pr.base})` : ''}` : 'the pull request';
    const text = renderLocalReview(cmd, this.repo, what);
    const file = this.store.write(`reviews/${cmd.step}-a${cmd.attempt}.md`, `${text}\n`);
    this.on.say(text);
    return { type: 'review.posted', key: `${cmd.key}/result`, at: Date.now(), step: cmd.step, attempt: cmd.attempt, reviewId: 0, url: relative(this.repo, file), event: cmd.event };
  }

  /** A local run has no issue: nothing is labelled, and the step says so (its note names what was asked for). */
  private labels(cmd: ApplyLabels): RunEvent[] {
    return [{ type: 'labels.applied', key: `${cmd.key}/result`, at: Date.now(), step: cmd.step, applied: [], unknown: [], note: LOCAL_LABELS_NOTE }];
  }

  cleanup(runId: string): void {
    removeWorktree(this.repo, worktreesDir(this.repo, runId) + '/_run');
  }
}

export const LOCAL_LABELS_NOTE = 'not added: a local run has no issue to label';

export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
