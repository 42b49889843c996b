// The run engine's public surface.
export { decide, type Decision } from './decide.ts';
export { emptyState, isTerminal, stepState } from './state.ts';
export { replay, assertManifestUnchanged, ManifestChangedError, type Replayed } from './replay.ts';
export {
  encodeState,
  decodeState,
  encodeCompact,
  decodeCompact,
  UnknownStateVersionError,
  InvalidStateError,
} from './codec.ts';
export { nextDeadline } from './deadlines.ts';
export { headHeld } from './held.ts';
export { isAllowed, describeRoles, listsBot, admitsAuthor, type TriggerKind } from './roles.ts';
export { BREAKER_THRESHOLD, BREAKER_COOLDOWN_MS } from './breaker.ts';
export { keptNote } from './kept.ts';
export * from './naming.ts';
export { describeDeliverable, type Deliverable, type Delivering } from './deliverable.ts';
export type * from './events.ts';
export type * from './commands.ts';
export type * from './types.ts';
export { STATE_VERSION, TERMINAL_RUN_STATUSES, DONE_STEP_STATUSES, APPLIED_KEYS_LIMIT } from './types.ts';
