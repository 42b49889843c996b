// The DispatchWorker command as one workflow_dispatch input: base64 of deflated JSON.
// Inputs are strings of limited size, and a prompt with an issue body compresses well.
import { deflateSync, inflateSync, strFromU8, strToU8 } from 'fflate';
import type { DispatchWorker } from '../engine/commands.ts';

export class TaskDecodeError extends Error {
  override name = 'TaskDecodeError';
}

export class TaskTooLargeError extends Error {
  override name = 'TaskTooLargeError';
}

/** GitHub refuses a workflow_dispatch whose inputs hold more than this many characters, all inputs together. */
export const MAX_TASK_INPUT = 65_535;

export function encodeTask(task: DispatchWorker): string {
  const text = Buffer.from(deflateSync(strToU8(JSON.stringify(task)), { level: 9 })).toString('base64');
  if (text.length > MAX_TASK_INPUT) {
    throw new TaskTooLargeError(
      `the task of ${task.runName} is ${text.length} characters once encoded; a workflow_dispatch input holds at most ${MAX_TASK_INPUT} (shorten what the prompt quotes)`,
    );
  }
  return text;
}

export function decodeTask(text: string): DispatchWorker {
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
  return checkTask(v);
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
