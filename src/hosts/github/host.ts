// The GitHub host: carries out the engine's commands with Octokit for one run. The state
// is kept in memory while one event is processed and written once at the end (`flush`):
// the status comment is the state, and one edit per processed event is the budget
// (docs/performance.md). Effects are made safe to repeat instead — each one is looked up before
// it is redone after a restart (`memory.warm` false) — so a crash before the flush
// followed by a redelivery redoes nothing twice. Before its first effect an event claims the
// run's next generation (lease.ts): with several App processes, only the one whose view of
// the run is current acts.
import type { Command, RunEvent, RunState } from '../../engine/index.ts';
import type { HostPort } from '../driver.ts';
import type { Workflow } from '../../manifest/types.ts';
import { relabel } from '../../record/externalize.ts';
import { fitRecord, RecordTooLargeError, renderRecord, type RenderOptions } from '../../record/render.ts';
import { refusedForGood, type RepoContext } from './client.ts';
import { cancelWorker, dispatchWorker } from './dispatch.ts';
import { upsertCheckRun } from './checks.ts';
import { ciAt } from './ci-at.ts';
import type { CommitCache, RunMemory } from './memory.ts';
import { mergeStepBranch, notFastForward } from './merge.ts';
import { OutputStore, storeOutputs } from './outputs.ts';
import { applyLabels } from './labels.ts';
import { ensurePullRequest } from './pull-request.ts';
import { postReview } from './review.ts';
import { refusedStanding, replyFor } from './stranger-door.ts';
import { postOnce, writeRecord } from './thread.ts';
import { LeaseTaken, type EventClaim } from './lease.ts';
import { createRef, updateRef } from './git-refs.ts';
import { catchUpWithDefaultBranch, RunBranchRefused, workflowRuleRefusal } from './workflow-rule.ts';
import { questionsText } from './questions.ts';
import { deliverableRead, readCommit, readDeliverable } from './read-back.ts';
import { drive } from '../driver.ts';
import { headHeld, stepState } from '../../engine/index.ts';
import { heldHeadRef, pointRef } from './step-refs.ts';

export class GitHubHost implements HostPort {
  constructor(
    private readonly gh: RepoContext,
    readonly memory: RunMemory,
    private readonly commits: CommitCache,
    private readonly now: () => number = Date.now,
    private readonly outputs: OutputStore = new OutputStore(),
    /** This event's claim on the run; none where one process is the only writer (Actions-only). */
    private readonly claim: EventClaim | null = null,
  ) {}

  private changed = false;

  async save(state: RunState): Promise<void> {
    this.memory.state = state;
    this.changed = true;
  }

  /** Claims the run before an effect; a refused start (idle) makes no run and claims nothing. */
  private async claimFor(state: RunState, sha?: string): Promise<void> {
    if (this.claim && state.status !== 'idle') await this.claim.ensure(state, sha);
  }

  /**
   * A step's commit that fast-forwards the run before its pull request exists is merged by
   * recording it as the run's head, not by moving the branch: the event's claim points at the
   * commit (so a ref keeps it, and the next worker fetches it by sha), which saves one paced
   * write per agent step. True when that is how this merge is done.
   */
  private async mergeLater(command: Extract<Command, { type: 'merge-step-branch' }>, state: RunState): Promise<boolean> {
    if (!this.claim || this.claim.claimed || state.pr || command.commit === state.head) return false;
    if (!onHead(state, command)) return false;
    try {
      await this.claim.ensure(state, command.commit);
      return true;
    } catch (err) {
      // GitHub refuses a ref on some commits for good (workflow files without the `workflows`
      // permission): claim on the head instead, and let the merge meet the refusal and say so.
      if (err instanceof LeaseTaken || !refusedForGood(err)) throw err;
      return false;
    }
  }

  /**
   * Brings the run branch to the run's head (a fast-forward) before anything reads the branch.
   * What the engine must hear when the branch had to catch up with the default branch first
   * (GitHub's workflow-file rule, workflow-rule.ts), or could not: nothing when the move was plain.
   */
  private async syncBranch(state: RunState, at: number, workflow: Workflow, need = false): Promise<RunEvent[]> {
    if (!state.runBranch.startsWith('baton/') || !state.head) return [];
    // A fork run's head is the fork's commit: its branch never moves there (engine/start.ts).
    if (state.fork) return [];
    // An approval still to come: the head is kept off the branch, unless something needs it there.
    if (!need && (await this.hold(state, workflow))) return [];
    if (this.memory.branchAt === state.head) return [];
    try {
      await updateRef(this.gh, `heads/${state.runBranch}`, state.head, false);
    } catch (err) {
      if (workflowRuleRefusal(err)) return this.catchUp(state, err, at);
      if (notFastForward(err)) {
        throw new Error(`run ${state.runId}: ${state.runBranch} was moved by someone else and does not lead to the run's head ${state.head.slice(0, 7)}; baton does not overwrite it`, { cause: err });
      }
      throw err;
    }
    this.memory.branchAt = state.head;
    return [];
  }

  /**
   * While the run's head is held (engine/held.ts), keeps it under its held ref instead of the
   * branch: true when it did. False when it is not held — or when GitHub refuses the ref for good
   * (the workflow-file rule): then the branch takes the head as before, saying nothing new.
   */
  private async hold(state: RunState, workflow: Workflow, head: string = state.head): Promise<boolean> {
    if (!headHeld(state, workflow)) return false;
    // Already kept: by the held ref, or by the branch itself (nothing new since it was made).
    if (this.memory.heldAt === head || this.memory.branchAt === head) return true;
    try {
      await pointRef(this.gh, heldHeadRef(state.runId), head);
    } catch (err) {
      if (!refusedForGood(err)) throw err;
      return false;
    }
    this.memory.heldAt = head;
    return true;
  }

  /** The run branch, refused as it is, brought up to date with the default branch and the run's head. */
  private async catchUp(state: RunState, why: unknown, at: number): Promise<RunEvent[]> {
    const key = `${state.runId}/run-branch/${state.head}`;
    try {
      const head = await catchUpWithDefaultBranch(this.gh, state.runBranch, state.head, why);
      this.memory.branchAt = head;
      return [{ type: 'run-branch.updated', key: `${key}/updated`, at, from: state.head, head }];
    } catch (err) {
      if (!(err instanceof RunBranchRefused)) throw err;
      return [{ type: 'run-branch.refused', key: `${key}/refused`, at, error: err.message }];
    }
  }

  /** Writes the status comment when its body changed, with the generation this event claimed. */
  async flush(workflow: Workflow): Promise<void> {
    const state = this.memory.state;
    if (state.status === 'idle') return; // a refused start leaves no record
    if (this.changed) await this.claimFor(state);
    // No worker is working on the run's head now: people and CI look at the branch (its checks
    // step, an answer, the end of the run), so it shows every merged step from here on.
    if (this.changed && !state.steps.some((s) => s.jobs.some((j) => j.status === 'running'))) {
      const events = await this.syncBranch(state, this.now(), workflow);
      if (events.length) await drive(this, workflow, state, events);
    }
    const now = this.memory.state;
    let body = await this.render(now, workflow);
    if (body === this.memory.body) return;
    // Only the text differs from what is on GitHub (someone edited the comment): rewriting it is an effect too.
    if (this.claim && !this.claim.claimed) {
      await this.claimFor(now);
      body = await this.render(now, workflow);
    }
    const id = await writeRecord(this.gh, now, this.memory.commentId, this.memory.body, body);
    this.memory.commentId = id;
    this.memory.body = body;
  }

  /**
   * The status comment's body. When it would be too long, the largest outputs are stored
   * in check runs first and the state written keeps references (the state in memory, what
   * the engine sees, stays whole). Check runs are not comment edits: the budget holds.
   */
  private async render(state: RunState, workflow: Workflow): Promise<string> {
    const opts: RenderOptions = { ...(this.gh.stateSecret ? { secret: this.gh.stateSecret } : {}), ...(this.memory.gen ? { gen: this.memory.gen } : {}) };
    try {
      return renderRecord(state, workflow, opts);
    } catch (err) {
      if (!(err instanceof RecordTooLargeError)) throw err;
    }
    const fitted = fitRecord(state, workflow, opts);
    const ids = await storeOutputs(this.gh, this.outputs, this.memory, state, fitted.blobs);
    return renderRecord(relabel(fitted.state, ids), workflow, opts);
  }

  async execute(command: Command, state: RunState, workflow: Workflow): Promise<RunEvent[]> {
    const gh = this.gh;
    const at = this.now();
    if (command.type === 'merge-step-branch' && (await this.mergeLater(command, state))) {
      return [{ type: 'merge.completed', key: `${command.key}/merged`, at, step: command.step, slot: command.slot, attempt: command.attempt, head: command.commit }];
    }
    if (command.type !== 'finish-run' && command.type !== 'render-record') await this.claimFor(state);
    switch (command.type) {
      case 'create-run-branch':
        this.memory.branchAt = command.sha;
        if (!(await createBranch(gh, command.branch, command.sha))) {
          this.memory.branchAt = undefined;
          // The branch exists: an earlier delivery started this run and died before its
          // record was written. Look up everything it may have done before redoing it.
          this.memory.warm = false;
          this.memory.checksKnown = false;
        }
        return [];
      case 'dispatch-worker':
        return dispatchWorker(gh, command, at, !this.memory.warm);
      case 'cancel-worker':
        await cancelWorker(gh, command);
        return [];
      case 'merge-step-branch': {
        // A commit on the head fast-forwards the branch from wherever it lags; one that is not
        // (a parallel slot) goes through the merges API, which merges into the branch as it is.
        let head = state.head;
        const fastForward = onHead(state, command);
        // Held (an approval to come): a commit on the head becomes the head without touching the branch.
        if (fastForward && (await this.hold(state, workflow, command.commit))) {
          return [{ type: 'merge.completed', key: `${command.key}/merged`, at, step: command.step, slot: command.slot, attempt: command.attempt, head: command.commit }];
        }
        // A parallel slot is merged by the merges API, which needs the branch at the head: it
        // moves there now, held or not (docs/security.md says what reaches a branch before approval).
        const synced = fastForward ? [] : await this.syncBranch(state, at, workflow, true);
        for (const ev of synced) {
          if (ev.type === 'run-branch.updated') head = ev.head;
          if (ev.type === 'run-branch.refused') return [{ type: 'merge.refused', key: `${command.key}/refused`, at, step: command.step, slot: command.slot, attempt: command.attempt, error: ev.error }, ev];
        }
        const events = await mergeStepBranch(gh, this.commits, command, head, at, { onHead: fastForward });
        const merged = events.find((e) => e.type === 'merge.completed');
        this.memory.branchAt = merged && 'head' in merged ? merged.head : undefined;
        return [...synced, ...events];
      }
      case 'check-run':
        await upsertCheckRun(gh, this.memory, command);
        return [];
      case 'post-questions': {
        const text = questionsText(state, command.step, command.questions);
        const thread = command.thread ?? state.thread;
        if (thread) await postOnce(gh, thread.number, `baton:questions ${command.key}`, text, this.memory.markers);
        // With a PR open, people are looking there: ask there too (answers count from both).
        if (state.pr && state.pr.number !== thread?.number) {
          await postOnce(gh, state.pr.number, `baton:questions ${command.key}@pr`, text, this.memory.markers);
        }
        return [];
      }
      case 'post-review':
        return postReview(gh, command, this.memory.markers, !this.memory.warm, at);
      case 'ensure-pull-request': {
        const synced = await this.syncBranch(state, at, workflow, true);
        if (synced.some((e) => e.type === 'run-branch.refused')) return synced;
        return [...synced, ...(await ensurePullRequest(gh, command, at))];
      }
      case 'apply-labels':
        return applyLabels(gh, command, at);
      case 'dispatch-checks-workflow': {
        const synced = await this.syncBranch(state, at, workflow, true);
        if (synced.some((e) => e.type === 'run-branch.refused')) return synced;
        await gh.octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
          owner: gh.owner,
          repo: gh.repo,
          workflow_id: command.workflowFile,
          ref: command.ref,
        });
        return synced;
      }
      case 'read-checks': {
        const { checks, complete } = await ciAt(gh, command.sha, command.branch);
        return checks.length ? [{ type: 'checks.reported', key: command.key, at, sha: command.sha, checks, ...(complete ? { complete } : {}) }] : [];
      }
      case 'read-back': {
        const x = command.deliverable;
        if (x.kind !== 'commit') return [deliverableRead(command, at, await readDeliverable(gh, x))];
        // Read where it is kept: the held head's ref while an approval is to come, else the branch.
        const ref = headHeld(state, workflow) && this.memory.heldAt === x.head ? heldHeadRef(state.runId) : `heads/${x.branch}`;
        const keptBy = this.memory.branchAt === x.head ? `\`${x.branch}\`` : this.claim?.keeps === x.head ? "the run's claim" : null;
        return [deliverableRead(command, at, await readCommit(gh, this.commits, x, ref, keptBy))];
      }
      case 'reply': {
        const thread = command.thread ?? state.thread;
        if (!thread || this.memory.markers.has(`baton:reply ${command.key}`)) return [];
        // A refusal to someone without the role: through the stranger door, which rations it.
        if (command.refused !== undefined) {
          if (await replyFor(gh, thread.number, command.key, refusedStanding(command.refused), command.body)) this.memory.markers.add(`baton:reply ${command.key}`);
          return [];
        }
        await postOnce(gh, thread.number, `baton:reply ${command.key}`, command.body, this.memory.markers);
        return [];
      }
      case 'finish-run':
      case 'render-record':
        return [];
    }
  }
}

/** Whether the commit to merge was made on the run's head (its job started there): a fast-forward. */
function onHead(state: RunState, command: Extract<Command, { type: 'merge-step-branch' }>): boolean {
  const job = stepState(state, command.step)?.jobs.find((j) => j.slot === command.slot);
  return job !== undefined && job.base === state.head;
}

/** False when the branch already existed (an earlier delivery made it); true when this process did, even if its answer was lost. */
async function createBranch(gh: RepoContext, branch: string, sha: string): Promise<boolean> {
  const made = await createRef(gh, `refs/heads/${branch}`, sha);
  return made.created || (made.unanswered && (await made.pointsAt()) === sha);
}

