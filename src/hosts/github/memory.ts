// What the app remembers about a run between events, in process. It only saves
// requests: everything here can be rebuilt from GitHub, which is what happens after a
// restart (`warm` is false then, and each effect is looked up before it is repeated).
// Only runs still going are kept: a finished run's next event (a `/baton retry`, a late
// webhook, the sweep) is rare, so what it would save is not worth its state, its status
// comment's body and its outputs held for hours; that event loads the run from GitHub as a
// fresh process would (runs.ts).
import { randomBytes } from 'node:crypto';
import { isTerminal, type RunState } from '../../engine/index.ts';
import { OutputStore } from './outputs.ts';

export interface RunMemory {
  state: RunState;
  /** The status comment, once it exists. */
  commentId: number | null;
  /** Its body as last written or read: an edit happens only when the new body differs. */
  body: string;
  /**
   * True when every effect of this run since its start went through this process:
   * then nothing needs looking up before it is done. False after a restart.
   */
  warm: boolean;
  /** Every check run of the run was created by this process: a cache miss means "create". */
  checksKnown: boolean;
  /** Check run ids by `<externalId>@<headSha>`. */
  checkRuns: Map<string, number>;
  /** Markers of baton's comments seen in the thread (questions, replies) when it was read. */
  markers: Set<string>;
  /** The lease generation of the record this process holds (lease.ts); 0 before the first claim. */
  gen: number;
  /**
   * When (on the lease clock) this view was last confirmed current: loaded from GitHub, or a claim
   * won. A claim from an older view is refused (lease.ts, StaleView) and the run reloaded.
   */
  confirmedAt?: number;
  /**
   * Where the run branch points, as far as this process knows (undefined: not known). Before the
   * run's pull request, a step's commit is merged without moving the branch (host.ts): the
   * branch is brought to the run's head when something reads it.
   */
  branchAt?: string;
  /** Where the run's held head ref points (step-refs.ts `heldHeadRef`), as far as this process knows. */
  heldAt?: string;
}

/**
 * Tree and parent of commits baton created or merged: saves a read per applied result. With
 * the id of this process, written into the commits it makes (a step's result, its claim anchor):
 * a claim that points at one of them names its maker (lease.ts).
 */
export class CommitCache {
  readonly maker = randomBytes(6).toString('hex');
  private readonly trees = new Map<string, string>();
  tree(sha: string): string | undefined {
    return this.trees.get(sha);
  }
  remember(sha: string, tree: string): void {
    if (this.trees.size > 5000) this.trees.clear();
    this.trees.set(sha, tree);
  }
}

/** What a process keeps in memory for runs: how many, and their size serialized (UTF-8 JSON). */
export interface Retained {
  runs: number;
  bytes: number;
}

/** Runs kept at most (the one whose last event is oldest goes first): a bound on memory however many runs are open at once. */
export const MAX_RUN_MEMORIES = 2000;

export class RunMemories {
  private readonly runs = new Map<string, RunMemory>();
  readonly commits = new CommitCache();
  /** Outputs kept in check runs, stored or read by this process. */
  readonly outputs = new OutputStore();

  key(owner: string, repo: string, runId: string): string {
    return `${owner}/${repo}#${runId}`.toLowerCase();
  }
  get(owner: string, repo: string, runId: string): RunMemory | undefined {
    return this.runs.get(this.key(owner, repo, runId));
  }
  /** Keeps a run going for its next event; a finished run is released instead (what it held goes). */
  set(owner: string, repo: string, memory: RunMemory): void {
    if (isTerminal(memory.state.status)) return this.release(owner, repo, memory.state.runId);
    const key = this.key(owner, repo, memory.state.runId);
    this.runs.delete(key); // set again: the newest in the order of eviction
    if (this.runs.size >= MAX_RUN_MEMORIES) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(key, memory);
  }
  /** What is in memory may be ahead of GitHub (an event failed midway): the next event reads the record. */
  forget(owner: string, repo: string, runId: string): void {
    this.runs.delete(this.key(owner, repo, runId));
  }
  /** A finished run: its state, body and outputs go; its next event loads it from GitHub. */
  release(owner: string, repo: string, runId: string): void {
    this.forget(owner, repo, runId);
    this.outputs.forgetRun(owner, repo, runId);
  }

  /**
   * What the runs kept here hold, serialized: state (outputs whole), status comment body,
   * markers, check run ids, and the outputs kept for them. Walks everything: for tests, the
   * bench and an operator's look, not for every event.
   */
  retained(): Retained {
    let bytes = this.outputs.retainedBytes();
    for (const m of this.runs.values()) {
      bytes += Buffer.byteLength(JSON.stringify({ ...m, checkRuns: [...m.checkRuns], markers: [...m.markers] }));
    }
    return { runs: this.runs.size, bytes };
  }
}
