// `concurrency:` groups, per repository, as GitHub runs them: at most one running and
// one pending member per group. A newcomer replaces (cancels) the pending one; with
// `cancel-in-progress` it also cancels the running one. Used for runs and for jobs.

export interface Member {
  /** Called when a newer member with `cancel-in-progress` pushes out this running one. */
  cancel(): void;
}

interface Group {
  running?: Member;
  pending?: { member: Member; admit: (admitted: boolean) => void };
}

export class ConcurrencyGroups {
  private readonly groups = new Map<string, Group>();

  /**
   * Waits for the member's turn in `key`. Resolves true when it may run (call `release`
   * when it is done), false when a newer member replaced it while it was waiting.
   */
  acquire(key: string, member: Member, cancelInProgress: boolean): Promise<boolean> {
    let group = this.groups.get(key);
    if (!group) {
      group = {};
      this.groups.set(key, group);
    }
    if (group.pending) {
      const old = group.pending;
      group.pending = undefined;
      old.admit(false);
    }
    if (!group.running) {
      group.running = member;
      return Promise.resolve(true);
    }
    if (cancelInProgress) group.running.cancel();
    return new Promise((admit) => {
      group.pending = { member, admit };
    });
  }

  release(key: string, member: Member): void {
    const group = this.groups.get(key);
    if (!group || group.running !== member) return;
    const next = group.pending;
    group.running = next?.member;
    group.pending = undefined;
    if (next) next.admit(true);
    else this.groups.delete(key);
  }

  /** Takes a member out of the queue without running it (e.g. its run was cancelled while pending). */
  withdraw(key: string, member: Member): void {
    const group = this.groups.get(key);
    if (group?.pending?.member === member) {
      const p = group.pending;
      group.pending = undefined;
      p.admit(false);
    }
  }
}
