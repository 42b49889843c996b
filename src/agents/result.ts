// The worker's result artifact: the one contract between the job that ran an agent
// (holding a read-only token) and whatever applies its work (the App, or the `apply` job).
//
//   baton-result/
//     result.json      WorkerResult below
//     files/<path>     content of every added or modified file
//     transcript.txt   what the agent printed
//
// The artifact is produced next to an agent that read untrusted text, so reading it
// back checks everything: shape, paths (no `..`, nothing under .git), and that every
// listed file is present.
import { lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Json } from '../manifest/expressions.ts';
import { COST_UNMETERED, INFRASTRUCTURE_CAUSES, type CostUnmetered, type InfrastructureCause } from '../engine/events.ts';
import type { SandboxReport } from '../engine/sandbox.ts';
import { STOP_LIMITS, type StopLimit } from '../engine/types.ts';
import { parseSandboxReport } from './sandbox-report.ts';
import { touchesGitDir } from './git-path.ts';
import type { Sealed } from './leak-check.ts';
import { CapBreach, inflateWithin, RESULT_CAPS, type ResultCaps } from './result-caps.ts';
import { ownStamp, WORKER_FORMAT, workerStampOf, type WorkerStamp } from '../compat.ts';

export const RESULT_VERSION = WORKER_FORMAT;
export const RESULT_ARTIFACT = 'baton-result';

export type FileMode = '100644' | '100755' | '120000';

export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted';
  mode: FileMode;
}

export interface WorkerResult {
  version: typeof RESULT_VERSION;
  run: string;
  step: string;
  slot: string;
  attempt: number;
  /**
   * succeeded: outputs extracted (and valid, if a schema was given); invalid-output: no
   * valid result after the bounded re-prompts; crashed / timed-out: the agent did not finish
   * (changes made so far are still listed: partial work is never lost).
   */
  /** `refused`: the worker withheld the result (it still carried a secret of the job: leak-check.ts). */
  status: 'succeeded' | 'invalid-output' | 'crashed' | 'timed-out' | 'refused';
  outputs: Json;
  error: string | null;
  usage: { costUsd?: number; inputTokens?: number; outputTokens?: number; costEstimated?: boolean; costUnmetered?: CostUnmetered };
  /** The commit the worker started from; changes are relative to it. */
  base: string;
  changes: FileChange[];
  backend: string;
  durationMs: number;
  /** Set when the attempt failed before its backend could work (infrastructure.ts): what a fallback is for. */
  infrastructure?: InfrastructureCause;
  /** The limit that stopped the agent (its turns, its time, its cost), on a failed attempt: its changes are a checkpoint to resume from. */
  limit?: StopLimit;
  /** What the sandbox enforced and refused (absent for tasks without a sandbox request). */
  sandbox?: SandboxReport;
  /**
   * The worker's baton and the version of the workflow files it ran under (compat.ts): the
   * collector refuses a result whose worker does not meet the run. Absent: a worker of a
   * baton that did not stamp its results (or a stamp not well-formed).
   */
  baton?: WorkerStamp;
}

export interface ResultBundle {
  result: WorkerResult;
  /** Content of added and modified files, by path. */
  files: Map<string, Uint8Array>;
  transcript: string;
}

export class InvalidResultError extends Error {}

/**
 * Writes the artifact directory (what upload-artifact then uploads). Only a bundle that
 * passed the door (leak-check.ts) is taken: nothing reaches the artifact around it.
 */
export function writeResultDir(dir: string, bundle: Sealed<ResultBundle>): void {
  // Replaced, never merged: the agent ran before this and may have planted files or
  // symlinks where the result goes (the upload step would carry them, or write through them).
  try {
    if (lstatSync(dir).isSymbolicLink()) rmSync(dir, { force: true });
  } catch {
    // not there yet
  }
  for (const entry of ['files', 'result.json', 'transcript.txt']) rmSync(join(dir, entry), { recursive: true, force: true });
  mkdirSync(join(dir, 'files'), { recursive: true });
  writeFileSync(join(dir, 'result.json'), JSON.stringify(bundle.result, null, 2));
  writeFileSync(join(dir, 'transcript.txt'), bundle.transcript);
  for (const [path, content] of bundle.files) {
    const target = join(dir, 'files', checkPath(path));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
}

/** Reads an artifact directory (the `apply` job after download-artifact). */
export function readResultDir(dir: string): ResultBundle {
  let raw: string;
  try {
    raw = readFileSync(join(dir, 'result.json'), 'utf8');
  } catch {
    throw new InvalidResultError(`the worker result has no result.json (looked in ${dir})`);
  }
  const result = parseResult(raw);
  const files = new Map<string, Uint8Array>();
  for (const c of result.changes) {
    if (c.status === 'deleted') continue;
    try {
      files.set(c.path, readFileSync(join(dir, 'files', c.path)));
    } catch {
      throw new InvalidResultError(`the worker result lists ${c.path} as ${c.status} but does not contain it`);
    }
  }
  let transcript = '';
  try {
    transcript = readFileSync(join(dir, 'transcript.txt'), 'utf8');
  } catch {
    // a transcript is welcome, not required
  }
  return { result, files, transcript };
}

/** Reads the artifact as downloaded from the Actions API (a zip of the directory), within `caps`. */
export function readResultZip(zip: Uint8Array, caps: ResultCaps = RESULT_CAPS): ResultBundle {
  let entries: Map<string, Uint8Array>;
  try {
    entries = inflateWithin(zip, caps);
  } catch (err) {
    if (err instanceof CapBreach) throw new InvalidResultError(err.message);
    throw new InvalidResultError(`the worker result artifact is not a readable zip: ${(err as Error).message}`);
  }
  const text = (name: string): string | undefined => (entries.has(name) ? Buffer.from(entries.get(name)!).toString('utf8') : undefined);
  const raw = text('result.json');
  if (raw === undefined) throw new InvalidResultError('the worker result artifact has no result.json');
  const result = parseResult(raw);
  const files = new Map<string, Uint8Array>();
  for (const c of result.changes) {
    if (c.status === 'deleted') continue;
    const content = entries.get(`files/${c.path}`);
    if (!content) throw new InvalidResultError(`the worker result lists ${c.path} as ${c.status} but does not contain it`);
    files.set(c.path, content);
  }
  return { result, files, transcript: text('transcript.txt') ?? '' };
}

export function parseResult(raw: string): WorkerResult {
  let v: any;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    throw new InvalidResultError(`result.json is not JSON: ${(err as Error).message}`);
  }
  const fail = (why: string): never => {
    throw new InvalidResultError(`result.json: ${why}`);
  };
  if (!v || typeof v !== 'object') fail('not an object');
  if (v.version !== RESULT_VERSION) {
    // Another format is another baton: say which, so the refusal leads to `baton update` (compat.ts).
    const worker = workerStampOf(v.baton);
    const skew = `; its worker is ${worker ? `baton ${worker.version}` : 'a baton that does not say its version'} and this is baton ${ownStamp().version}: bring them to one version with \`baton update\``;
    fail(`version ${Number.isInteger(v.version) ? v.version : JSON.stringify(typeof v.version)} is not ${RESULT_VERSION}${skew}`);
  }
  for (const k of ['run', 'step', 'slot', 'base', 'backend'] as const) if (typeof v[k] !== 'string') fail(`\`${k}\` must be a string`);
  if (!Number.isInteger(v.attempt) || v.attempt < 1) fail('`attempt` must be a positive integer');
  if (!['succeeded', 'invalid-output', 'crashed', 'timed-out', 'refused'].includes(v.status)) fail(`unknown status ${JSON.stringify(v.status)}`);
  if (!Array.isArray(v.changes)) fail('`changes` must be a list');
  for (const c of v.changes) {
    if (!c || typeof c.path !== 'string') fail('every change needs a `path`');
    checkPath(c.path);
    if (!['added', 'modified', 'deleted'].includes(c.status)) fail(`change of ${c.path} has unknown status ${JSON.stringify(c.status)}`);
    if (!['100644', '100755', '120000'].includes(c.mode)) fail(`change of ${c.path} has unknown mode ${JSON.stringify(c.mode)}`);
  }
  return {
    ...v,
    outputs: v.outputs ?? null,
    error: v.error ?? null,
    usage: usageOf(v.usage),
    durationMs: Number(v.durationMs) || 0,
    // Written next to the agent: only a known cause, and only on a failed attempt, is taken.
    infrastructure: v.status !== 'succeeded' && INFRASTRUCTURE_CAUSES.includes(v.infrastructure) ? v.infrastructure : undefined,
    // Likewise: only a known limit, only on a failed attempt.
    limit: v.status !== 'succeeded' && STOP_LIMITS.includes(v.limit) ? v.limit : undefined,
    sandbox: v.sandbox === undefined || v.sandbox === null ? undefined : parseSandboxReport(v.sandbox, fail),
    // Written next to the agent: only a well-formed stamp is taken (its versions end up in the record).
    baton: workerStampOf(v.baton) ?? undefined,
  } as WorkerResult;
}

/**
 * A repository-relative path that cannot escape the checkout or touch git's own files: no
 * `..`, no absolute path, no backslash or control character, and no component git would take
 * for `.git` (in any spelling git itself refuses: see git-path.ts), at any depth.
 */
export function checkPath(path: string): string {
  const parts = path.split('/');
  const refuse = (why: string): never => {
    throw new InvalidResultError(`refusing the path ${JSON.stringify(path)}: ${why}`);
  };
  // eslint-disable-next-line no-control-regex
  if (path === '' || path.startsWith('/') || path.includes('\\') || /[\u0000-\u001f\u007f]/.test(path) || parts.some((p) => p === '..' || p === '.' || p === '')) refuse('changes must stay inside the repository');
  if (touchesGitDir(path)) refuse("changes must stay out of git's own directory (.git, in any spelling git accepts)");
  return path;
}

/** The result's usage: its numbers as given, and a reason for no cost only when it is one baton knows (written next to the agent). */
function usageOf(u: unknown): WorkerResult['usage'] {
  if (!u || typeof u !== 'object') return {};
  const { costUnmetered, ...rest } = u as WorkerResult['usage'];
  return { ...rest, ...(COST_UNMETERED.includes(costUnmetered as CostUnmetered) && { costUnmetered }) };
}
