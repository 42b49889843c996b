// The state as text: plain JSON (files, tests), and a compact form for the hidden block
// of the status comment (deflated and base64'd: states repeat the same keys a lot).
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { STATE_VERSION, type RunState } from './types.ts';

export class UnknownStateVersionError extends Error {
  constructor(readonly found: unknown) {
    super(`run state version ${JSON.stringify(found)} is not supported (this baton reads version ${STATE_VERSION}); upgrade baton or start a new run`);
    this.name = 'UnknownStateVersionError';
  }
}

export class InvalidStateError extends Error {
  constructor(why: string) {
    super(`the run state cannot be read: ${why}`);
    this.name = 'InvalidStateError';
  }
}

export function encodeState(state: RunState): string {
  return JSON.stringify(state);
}

export function decodeState(text: string): RunState {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InvalidStateError(`not JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidStateError('not an object');
  const v = value as Record<string, unknown>;
  if (v.version !== STATE_VERSION) throw new UnknownStateVersionError(v.version);
  for (const [key, type] of [
    ['runId', 'string'],
    ['status', 'string'],
    ['steps', 'object'],
    ['budget', 'object'],
    ['appliedKeys', 'object'],
  ] as const) {
    if (typeof v[key] !== type || v[key] === null) throw new InvalidStateError(`field \`${key}\` is missing or not a ${type}`);
  }
  if (!Array.isArray(v.steps)) throw new InvalidStateError('field `steps` is not a list');
  return value as RunState;
}

/** Prefix of the compact form; names the encoding so that it can change later. */
const COMPACT_PREFIX = 'z1:';

export function encodeCompact(state: RunState): string {
  // Level 1: half the time of the default level for ~10% more characters; the state
  // is encoded on every event, and the comment's limit is far away.
  return COMPACT_PREFIX + deflateRawSync(Buffer.from(encodeState(state), 'utf8'), { level: 1 }).toString('base64');
}

export function decodeCompact(text: string): RunState {
  const t = text.trim();
  if (!t.startsWith(COMPACT_PREFIX)) throw new InvalidStateError(`unknown compact encoding \`${t.slice(0, 8)}\``);
  let json: string;
  try {
    json = inflateRawSync(Buffer.from(t.slice(COMPACT_PREFIX.length), 'base64')).toString('utf8');
  } catch (err) {
    throw new InvalidStateError(`the compressed state is damaged (${(err as Error).message})`);
  }
  return decodeState(json);
}
