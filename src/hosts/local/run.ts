// A local run from start to a stop: feed events (recorded first), let the engine decide,
// carry out its commands, run local checks, ask people on the terminal when there is one,
// and stop when the run is finished or waits for an answer nobody here can give.
import { localActor } from './actor.ts';
import { basename } from 'node:path';
import { emptyState, isTerminal, replay, type Command, runBranch, type Json, type RunEvent, type RunRequested, type RunState } from '../../engine/index.ts';
import type { LoadedWorkflow, Workflow } from '../../manifest/types.ts';
import { drive } from '../driver.ts';
import { checksToRun, runChecks } from './checks.ts';
import { branchExists, currentBranch, excludeBatonDir, repoRoot, revParse } from './git.ts';
import { LocalHost, type HostEvents } from './host.ts';
import { unfinishedEffects } from './pending.ts';
import { RunStore } from './store.ts';
import { waitingFor, type Waiting } from './waiting.ts';
import { loadWorkflow } from './workflows.ts';
import type { LocalPullRequest } from './pull-request.ts';

export type Outcome = 'succeeded' | 'failed' | 'waiting' | 'stuck';

export interface Interaction {
  /** Asks one question on the terminal; null when nobody can answer here. */
  ask(question: string): Promise<string | null>;
  interactive: boolean;
}

export interface RunOptions extends HostEvents {
  env: NodeJS.ProcessEnv;
  interaction: Interaction;
}

export interface StartRequest {
  repo: string;
  file: string;
  inputs: Record<string, Json>;
  issue?: Json;
  /** A local branch standing in for a pull request: the run starts from its head and is bound to it. */
  pr?: LocalPullRequest;
}

export class LocalRun {
  readonly host: LocalHost;
  state: RunState;
  private external: RunEvent[] = [];
  private wakeUp: () => void = () => {};
  private wake: Promise<void> = Promise.resolve();

  private constructor(
    readonly store: RunStore,
    readonly loaded: LoadedWorkflow,
    state: RunState,
    readonly opts: RunOptions,
    reviewFrom: string,
  ) {
    this.state = state;
    this.host = new LocalHost(store, store.repo, reviewFrom, opts.env, opts);
    this.rearm();
  }

  /**
   * Where a reviewer's diff starts: where the pull request's changes start for a run bound to
   * one (kept in run.json), else the commit the run started from.
   */
  private static reviewFrom(store: RunStore): string {
    const requested = store.events().find((e) => e.type === 'run.requested') as RunRequested | undefined;
    return store.meta().reviewFrom ?? requested?.baseSha ?? '';
  }

  get workflow(): Workflow {
    return this.loaded.workflow;
  }

  /** Creates the run (its record and branch) and applies `run.requested`. */
  static async start(req: StartRequest, opts: RunOptions): Promise<LocalRun> {
    const repo = repoRoot(req.repo);
    const loaded = loadWorkflow(req.file);
    // A run bound to a pull request (a local branch) starts from its head, as on GitHub.
    const baseSha = req.pr?.head.sha ?? revParse(repo, 'HEAD');
    if (!baseSha) throw new Error(`${repo} has no commit yet: a run starts from the checked-out commit`);
    const baseBranch = req.pr?.head.branch ?? currentBranch(repo) ?? 'main';
    excludeBatonDir(repo);
    const meta = { workflow: loaded.workflow.name, file: loaded.file, repo, createdAt: Date.now(), ...(req.pr && { reviewFrom: req.pr.mergeBase }) };
    const store = RunStore.create(repo, meta, (id) => branchExists(repo, runBranch(id)));
    store.lock();
    store.saveStartedWorkflow(loaded);
    const run = new LocalRun(store, loaded, emptyState(), opts, req.pr?.mergeBase ?? baseSha);
    const event: RunRequested = {
      type: 'run.requested',
      key: `${store.runId}/requested`,
      at: Date.now(),
      runId: store.runId,
      workflow: loaded.workflow.name,
      manifestHash: loaded.hash,
      manifestCommit: baseSha,
      inputs: req.inputs,
      // A branch has no number: the thread is pull request 0, which the local host answers for.
      thread: req.pr ? { kind: 'pull', number: 0 } : null,
      ...(req.issue !== undefined && { issue: req.issue }),
      ...(req.pr !== undefined && { pr: req.pr.context }),
      repo: { name: basename(repo), full_name: basename(repo), default_branch: req.pr?.base ?? baseBranch },
      baseBranch,
      baseSha,
      actor: localActor(),
      permission: 'admin',
    };
    const bound = req.pr ? ` for branch ${req.pr.head.branch} into ${req.pr.base}` : '';
    opts.say(`run ${store.runId} started${bound} on branch ${runBranch(store.runId)} (record: .baton/runs/${store.runId}/)`);
    await run.feed([event]);
    return run;
  }

  /**
   * Loads a run from its events and, unless `redo` is false, carries out again the effects
   * whose results were never recorded. With `manifest: 'file'` the workflow is read from its
   * file, which must be unchanged (ManifestChangedError otherwise): a run only goes on
   * against the manifest it started with. With 'as-started' it is the copy kept at the
   * start, for stopping a run whatever became of the file since.
   */
  static async resume(store: RunStore, opts: RunOptions, redo = true, manifest: 'file' | 'as-started' = 'file'): Promise<LocalRun> {
    const loaded = (manifest === 'as-started' && store.startedWorkflow()) || loadWorkflow(store.meta().file);
    const { state, commands } = replay(loaded.workflow, store.events(), loaded.hash);
    const run = new LocalRun(store, loaded, state, opts, LocalRun.reviewFrom(store));
    run.unfinished = unfinishedEffects(state, commands);
    await run.host.save(state, loaded.workflow, { render: true });
    if (redo) await run.redo();
    return run;
  }

  private unfinished: Command[] = [];

  /** Carries out again the effects a killed process left without a recorded result. */
  async redo(): Promise<void> {
    for (const cmd of this.unfinished.splice(0)) await this.drain(await this.host.execute(cmd, this.state));
  }

  /** Records the events, then lets the engine apply them. */
  async feed(events: RunEvent[]): Promise<void> {
    this.host.record(events);
    await this.drain(events);
  }

  /** Applies events that are already recorded. */
  private async drain(events: RunEvent[]): Promise<void> {
    if (!events.length) return;
    this.state = (await drive(this.host, this.workflow, this.state, events)).state;
  }

  /** An event from outside the loop (a cancel on SIGTERM): applied at the next turn. */
  interrupt(event: RunEvent): void {
    this.external.push(event);
    this.wakeUp();
  }

  private rearm(): void {
    this.wake = new Promise((resolve) => (this.wakeUp = resolve));
  }

  waiting(): Waiting[] {
    return waitingFor(this.state, this.workflow);
  }

  /** Drives the run until it finishes or waits for a person who is not at this terminal. */
  async loop(): Promise<Outcome> {
    const checksAbort = new AbortController();
    for (;;) {
      if (this.external.length) {
        const evs = this.external.splice(0);
        this.rearm();
        await this.feed(evs);
        continue;
      }
      if (isTerminal(this.state.status)) {
        this.host.abortAll('the run has finished');
        await this.host.settle();
        this.host.cleanup(this.state.runId);
        this.store.unlock();
        return this.state.status === 'succeeded' ? 'succeeded' : 'failed';
      }
      const checks = checksToRun(this.state, this.workflow);
      if (checks.length) {
        for (const step of checks) await this.feed([await runChecks(step, this.state, this.store.repo, this.opts.env, checksAbort.signal)]);
        continue;
      }
      if (this.host.inflight.size) {
        await this.feed(await this.host.next(this.wake));
        continue;
      }
      const waits = this.waiting();
      if (waits.length && this.opts.interaction.interactive) {
        await this.feed(await this.askHere(waits));
        continue;
      }
      this.store.unlock();
      return waits.length ? 'waiting' : 'stuck';
    }
  }

  private async askHere(waits: Waiting[]): Promise<RunEvent[]> {
    const w = waits[0]!;
    const actor = localActor();
    const at = Date.now();
    if (w.kind === 'ask') {
      const answers: (string | null)[] = w.questions.map(() => null);
      for (const i of w.open) answers[i] = await this.opts.interaction.ask(`[${w.step}] ${w.questions[i]}`);
      return [{ type: 'questions.answered', key: `${this.state.runId}/answer/${w.step}/${at}`, at, step: w.step, answers, actor, permission: 'admin' }];
    }
    const yes = await this.opts.interaction.ask(`[${w.step}] ${w.message ?? 'Approve this step?'} Approve? [y/N] (no cancels the run)`);
    if (yes !== null && /^y(es)?$/i.test(yes.trim())) {
      return [{ type: 'approval.given', key: `${this.state.runId}/approve/${w.step}/${at}`, at, step: w.step, actor, permission: 'admin' }];
    }
    return [{ type: 'cancel.requested', key: `${this.state.runId}/cancel/${at}`, at, actor, permission: 'admin' }];
  }
}
