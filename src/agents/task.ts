// The DispatchWorker command as one workflow_dispatch input: base64 of deflated JSON.
// Inputs are strings of limited size, and a prompt with an issue body compresses well.
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import type { DispatchWorker } from '../engine/commands.ts';
import type { SandboxRequest } from '../engine/sandbox.ts';
import { hostPatternError } from '../manifest/host-patterns.ts';
import { ownStamp, stampOf, type Stamp } from '../compat.ts';

export class TaskDecodeError extends Error {
  override name = 'TaskDecodeError';
}

export class TaskTooLargeError extends Error {
  override name = 'TaskTooLargeError';
}

/** GitHub refuses a workflow_dispatch whose inputs hold more than this many characters, all inputs together. */
export const MAX_TASK_INPUT = 65_535;

/** The task as dispatched, with `baton`: the version and format of the baton that dispatched it, which is the run's (compat.ts). */
export function encodeTask(task: DispatchWorker, from: Stamp = ownStamp()): string {
  const text = Buffer.from(deflateSync(strToU8(JSON.stringify({ ...task, baton: from })), { level: 9 })).toString('base64');
  if (text.length > MAX_TASK_INPUT) {
    throw new TaskTooLargeError(
      `the task of ${task.runName} is ${text.length} characters once encoded; a workflow_dispatch input holds at most ${MAX_TASK_INPUT} (shorten what the prompt quotes)`,
    );
  }
  return text;
}

export function decodeTask(text: string): DispatchWorker {
  return readTask(text).task;
}

/** The task and the stamp of the baton that dispatched it (null: one that says no version, or none well-formed). */
export function readTask(text: string): { task: DispatchWorker; from: Stamp | null } {
  const clean = text.replace(/\s+/g, '');
  if (!clean) throw new TaskDecodeError('the `task` input is empty; the worker workflow must pass the task it was dispatched with');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(clean)) throw new TaskDecodeError('the `task` input is not base64 (expected the deflated task baton dispatched)');
  let json: string;
  try {
    json = strFromU8(inflateSync(Buffer.from(clean, 'base64')));
  } catch (err) {
    throw new TaskDecodeError(`the \`task\` input does not inflate: ${(err as Error).message}; was it cut short?`);
  }
  let v: any;
  try {
    v = JSON.parse(json);
  } catch (err) {
    throw new TaskDecodeError(`the \`task\` input is not JSON after inflating: ${(err as Error).message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return { task: checkTask(v), from: null };
  const { baton, ...task } = v;
  return { task: checkTask(task), from: stampOf(baton) };
}

/** Checks the fields the worker relies on, naming the first one that is wrong. */
export function checkTask(v: any): DispatchWorker {
  const fail = (why: string): never => {
    throw new TaskDecodeError(`the \`task\` input is not a dispatch-worker command: ${why}`);
  };
  if (!v || typeof v !== 'object' || Array.isArray(v)) fail('not an object');
  if (v.type !== 'dispatch-worker') fail(`type is ${JSON.stringify(v.type)}`);
  for (const k of ['runId', 'key', 'workflow', 'step', 'slot', 'runName', 'base'] as const) if (typeof v[k] !== 'string' || !v[k]) fail(`\`${k}\` must be a non-empty string`);
  if (!Number.isInteger(v.attempt) || v.attempt < 1) fail('`attempt` must be a positive integer');
  if (!['agent', 'run', 'review', 'fix'].includes(v.kind)) fail(`unknown kind ${JSON.stringify(v.kind)}`);
  for (const k of ['prompt', 'command', 'agent', 'previousError', 'branch', 'fallbackFor', 'runBase'] as const) if (v[k] !== null && v[k] !== undefined && typeof v[k] !== 'string') fail(`\`${k}\` must be a string or null`);
  if (v.prompt == null && v.command == null) fail('it has neither a prompt nor a command');
  if (v.prompt != null && (!v.backend || typeof v.backend !== 'object' || typeof v.backend.uses !== 'string')) fail('a prompt needs `backend` (the agent spec)');
  if (v.timeoutMinutes != null && !(typeof v.timeoutMinutes === 'number' && v.timeoutMinutes > 0)) fail('`timeoutMinutes` must be a positive number or null');
  if (v.env != null && (typeof v.env !== 'object' || Object.values(v.env).some((x) => typeof x !== 'string'))) fail('`env` must map names to strings');
  if (v.sandbox != null) {
    const why = sandboxError(v.sandbox);
    if (why) fail(`\`sandbox\` ${why}`);
  }
  if (v.costCap != null) {
    const c = v.costCap;
    if (typeof c !== 'object' || !(typeof c.usd === 'number' && Number.isFinite(c.usd) && c.usd >= 0) || typeof c.what !== 'string') fail('`costCap` must be { usd: a number of at least 0, what: a string } or null');
  }
  return {
    ...v,
    index: v.index ?? null,
    item: v.item ?? null,
    agent: v.agent ?? null,
    backend: v.backend ? { env: {}, ...v.backend } : null,
    prompt: v.prompt ?? null,
    command: v.command ?? null,
    outputsSchema: v.outputsSchema ?? null,
    resume: v.resume === true,
    branch: v.branch ?? null,
    writes: v.writes !== false,
    env: v.env ?? {},
    timeoutMinutes: v.timeoutMinutes ?? null,
    previousError: v.previousError ?? null,
    feedback: v.feedback ?? null,
  } as DispatchWorker;
}

/**
 * What is wrong with a task's `sandbox` (src/engine/sandbox.ts), or null. The worker enforces
 * what it says, so a malformed one stops the attempt rather than run with less than asked.
 */
export function sandboxError(s: unknown): string | null {
  if (!s || typeof s !== 'object' || Array.isArray(s)) return 'must be an object { network, limits, required }';
  const r = s as Partial<Record<keyof SandboxRequest, any>>;
  if (typeof r.required !== 'boolean') return '`required` must be true or false';
  if (r.fork !== undefined && (r.fork !== true || r.required !== true)) return '`fork` must be true, with `required` true, or absent';
  const n = r.network;
  if (!n || typeof n !== 'object' || (n.mode !== 'off' && n.mode !== 'allow')) return '`network.mode` must be "off" or "allow"';
  if (!Array.isArray(n.allow) || n.allow.some((p: unknown) => typeof p !== 'string')) return '`network.allow` must be a list of host patterns';
  if (n.mode === 'off' && n.allow.length) return '`network.allow` must be empty when `network.mode` is "off"';
  for (const p of n.allow as string[]) {
    const error = hostPatternError(p);
    if (error) return `\`network.allow\`: ${JSON.stringify(p)} ${error}`;
  }
  const l = r.limits;
  if (!l || typeof l !== 'object') return 'must have `limits` { cpuSeconds, memoryMb, processes }';
  for (const k of ['cpuSeconds', 'memoryMb', 'processes'] as const) {
    if (l[k] !== null && !(Number.isInteger(l[k]) && l[k] > 0)) return `\`limits.${k}\` must be a positive integer or null`;
  }
  return null;
}
