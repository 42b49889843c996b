// Replaying a run's events from the start reproduces its state. A run is tied to the
// manifest it started with: replaying it against an edited manifest would silently
// give a different run, so that is refused.
import type { Workflow } from '../manifest/types.ts';
import type { Command } from './commands.ts';
import { decide } from './decide.ts';
import type { RunEvent } from './events.ts';
import { emptyState } from './state.ts';
import type { RunState } from './types.ts';

export class ManifestChangedError extends Error {
  constructor(
    readonly runId: string,
    readonly startedWith: string,
    readonly current: string,
  ) {
    super(
      `the workflow of run \`${runId}\` changed since it started (manifest ${startedWith.slice(0, 12)} then, ${current.slice(0, 12)} now); the run cannot go on against the new manifest — start a new run`,
    );
    this.name = 'ManifestChangedError';
  }
}

/** Throws ManifestChangedError when the state's run started from another manifest. */
export function assertManifestUnchanged(state: RunState, manifestHash: string): void {
  if (state.status !== 'idle' && state.manifestHash !== manifestHash) {
    throw new ManifestChangedError(state.runId, state.manifestHash, manifestHash);
  }
}

export interface Replayed {
  state: RunState;
  /** Every command the events led to, in order. */
  commands: Command[];
}

export function replay(workflow: Workflow, events: readonly RunEvent[], manifestHash: string): Replayed {
  let state = emptyState();
  const commands: Command[] = [];
  for (const event of events) {
    if (event.type === 'run.requested' && event.manifestHash !== manifestHash) {
      throw new ManifestChangedError(event.runId, event.manifestHash, manifestHash);
    }
    const next = decide(state, event, workflow);
    state = next.state;
    commands.push(...next.commands);
  }
  return { state, commands };
}
