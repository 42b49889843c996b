// What the app remembers about a run between events, in process. It only saves
// requests: everything here can be rebuilt from GitHub, which is what happens after a
// restart (`warm` is false then, and each effect is looked up before it is repeated).
import { randomBytes } from 'node:crypto';
import type { RunState } from '../../engine/index.ts';
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
  set(owner: string, repo: string, memory: RunMemory): void {
    if (this.runs.size > 2000) this.runs.delete(this.runs.keys().next().value!);
    this.runs.set(this.key(owner, repo, memory.state.runId), memory);
  }
  forget(owner: string, repo: string, runId: string): void {
    this.runs.delete(this.key(owner, repo, runId));
  }
}
