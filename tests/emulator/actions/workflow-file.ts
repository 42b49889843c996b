// Reads a `.github/workflows/*.yml` file into the shape the runner executes. Only the
// structure is checked here (what GitHub refuses as an invalid workflow file); features
// the runner does not implement are kept and refused when a job reaches them, so the
// failure names the job or step like a real run would.
import { parse } from 'yaml';
import { PERMISSION_SCOPES } from './permissions.ts';

/** A value as written in YAML: strings may hold `${{ }}`, numbers and booleans stay typed. */
export type Scalar = string | number | boolean | null;

export interface DispatchInput {
  description?: string;
  required: boolean;
  default?: Scalar;
  type: 'string' | 'boolean' | 'number' | 'choice' | 'environment';
  options?: string[];
}

export interface Concurrency {
  group: string;
  cancelInProgress: Scalar;
}

/** `permissions:` normalised to scope → level; `read-all`/`write-all` expanded later. */
export type Permissions = Record<string, 'read' | 'write' | 'none'> | 'read-all' | 'write-all';

export interface RunDefaults {
  shell?: string;
  workingDirectory?: string;
}

export interface StepDef {
  /** 0-based position in the job. */
  index: number;
  id?: string;
  name?: string;
  if?: Scalar;
  run?: string;
  uses?: string;
  with: Record<string, Scalar>;
  env: Record<string, Scalar>;
  shell?: string;
  workingDirectory?: string;
  continueOnError: Scalar;
  timeoutMinutes?: Scalar;
}

export interface JobDef {
  id: string;
  name?: string;
  needs: string[];
  if?: Scalar;
  runsOn: unknown;
  permissions?: Permissions;
  env: Record<string, Scalar>;
  outputs: Record<string, string>;
  steps: StepDef[];
  timeoutMinutes?: Scalar;
  continueOnError: Scalar;
  concurrency?: Concurrency;
  defaults: RunDefaults;
  /** Keys the runner does not implement (`container`, `services`, `strategy`, `uses`…). */
  unsupported: string[];
}

export interface WorkflowFile {
  path: string;
  /** `name:`, or the path as GitHub shows it when there is none. */
  name: string;
  runName?: string;
  /** Event names under `on:`. */
  events: string[];
  /** Present when the workflow has a `workflow_dispatch` trigger. */
  dispatchInputs?: Record<string, DispatchInput>;
  env: Record<string, Scalar>;
  permissions?: Permissions;
  concurrency?: Concurrency;
  defaults: RunDefaults;
  jobs: JobDef[];
}

export class WorkflowFileError extends Error {
  constructor(path: string, message: string) {
    super(`Invalid workflow file ${path}: ${message}`);
  }
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isScalar(v: unknown): v is Scalar {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

const JOB_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;
const PERMISSION_LEVELS = new Set(['read', 'write', 'none']);
const INPUT_TYPES = new Set(['string', 'boolean', 'number', 'choice', 'environment']);
const MAX_DISPATCH_INPUTS = 25;

export function parseWorkflowFile(path: string, text: string): WorkflowFile {
  const fail = (msg: string): never => {
    throw new WorkflowFileError(path, msg);
  };
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    fail(`YAML syntax error: ${(err as Error).message}`);
  }
  if (!isObj(doc)) return fail('the document is not a mapping');

  const { events, dispatchInputs } = parseOn(doc.on, fail);
  const jobsRaw = doc.jobs;
  if (!isObj(jobsRaw) || Object.keys(jobsRaw).length === 0) fail('`jobs` must be a non-empty mapping');

  const jobs = Object.entries(jobsRaw as Obj).map(([id, raw]) => parseJob(id, raw, fail));
  const ids = new Set(jobs.map((j) => j.id));
  for (const job of jobs) {
    for (const need of job.needs) {
      if (!ids.has(need)) fail(`job '${job.id}' depends on unknown job '${need}'`);
    }
  }
  checkNoCycle(jobs, fail);

  return {
    path,
    name: typeof doc.name === 'string' && doc.name !== '' ? doc.name : path,
    ...(typeof doc['run-name'] === 'string' ? { runName: doc['run-name'] } : {}),
    events,
    ...(dispatchInputs ? { dispatchInputs } : {}),
    env: scalarMap(doc.env, 'env', fail),
    ...optional('permissions', parsePermissions(doc.permissions, 'permissions', fail)),
    ...optional('concurrency', parseConcurrency(doc.concurrency, 'concurrency', fail)),
    defaults: parseDefaults(doc.defaults, 'defaults', fail),
    jobs,
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

type Fail = (msg: string) => never;

function parseOn(on: unknown, fail: Fail): { events: string[]; dispatchInputs?: Record<string, DispatchInput> } {
  if (typeof on === 'string') return { events: [on], ...(on === 'workflow_dispatch' ? { dispatchInputs: {} } : {}) };
  if (Array.isArray(on)) {
    const events = on.map(String);
    return { events, ...(events.includes('workflow_dispatch') ? { dispatchInputs: {} } : {}) };
  }
  if (!isObj(on)) return fail('`on` is required');
  const events = Object.keys(on);
  if (!events.includes('workflow_dispatch')) return { events };
  const wd = on.workflow_dispatch;
  const inputsRaw = isObj(wd) ? wd.inputs : undefined;
  const dispatchInputs: Record<string, DispatchInput> = {};
  if (inputsRaw !== undefined && inputsRaw !== null) {
    if (!isObj(inputsRaw)) fail('`on.workflow_dispatch.inputs` must be a mapping');
    // "The maximum number of top-level properties for inputs is 25" (workflow syntax docs;
    // changelog 2025-12-04 raised it from 10, whose refusal read like this one).
    if (Object.keys(inputsRaw as Obj).length > MAX_DISPATCH_INPUTS) fail(`you may only define up to ${MAX_DISPATCH_INPUTS} \`inputs\` for a \`workflow_dispatch\` event`);
    for (const [name, def] of Object.entries(inputsRaw as Obj)) {
      const d = isObj(def) ? def : {};
      const type = d.type === undefined ? 'string' : String(d.type);
      if (!INPUT_TYPES.has(type)) fail(`input '${name}' has unknown type '${type}'`);
      if (type === 'choice' && !Array.isArray(d.options)) fail(`choice input '${name}' needs \`options\``);
      if (d.default !== undefined && !isScalar(d.default)) fail(`input '${name}' has a non-scalar default`);
      dispatchInputs[name] = {
        required: d.required === true,
        type: type as DispatchInput['type'],
        ...(typeof d.description === 'string' ? { description: d.description } : {}),
        ...(d.default !== undefined ? { default: d.default as Scalar } : {}),
        ...(Array.isArray(d.options) ? { options: d.options.map(String) } : {}),
      };
    }
  }
  return { events, dispatchInputs };
}

function parseJob(id: string, raw: unknown, fail: Fail): JobDef {
  if (!JOB_ID.test(id)) fail(`job id '${id}' must start with a letter or _ and hold only letters, digits, - and _`);
  if (!isObj(raw)) return fail(`job '${id}' must be a mapping`);
  const where = `jobs.${id}`;
  const unsupported = ['container', 'services', 'strategy', 'uses', 'environment'].filter((k) => raw[k] !== undefined);
  if (raw.uses === undefined && raw['runs-on'] === undefined) fail(`job '${id}' has no \`runs-on\``);
  if (raw.uses === undefined && !Array.isArray(raw.steps)) fail(`job '${id}' has no \`steps\``);
  const needs = raw.needs === undefined ? [] : Array.isArray(raw.needs) ? raw.needs.map(String) : [String(raw.needs)];
  const outputs: Record<string, string> = {};
  if (raw.outputs !== undefined) {
    if (!isObj(raw.outputs)) fail(`${where}.outputs must be a mapping`);
    for (const [k, v] of Object.entries(raw.outputs as Obj)) outputs[k] = v === null ? '' : String(v);
  }
  const steps = Array.isArray(raw.steps) ? raw.steps.map((s, i) => parseStep(s, i, `${where}.steps[${i}]`, fail)) : [];
  const stepIds = new Set<string>();
  for (const s of steps) {
    if (s.id === undefined) continue;
    if (stepIds.has(s.id)) fail(`job '${id}' has two steps with id '${s.id}'`);
    stepIds.add(s.id);
  }
  if (raw['timeout-minutes'] !== undefined && !isScalar(raw['timeout-minutes'])) fail(`${where}.timeout-minutes must be a number`);
  return {
    id,
    ...(typeof raw.name === 'string' ? { name: raw.name } : {}),
    needs,
    ...(raw.if !== undefined ? { if: raw.if as Scalar } : {}),
    runsOn: raw['runs-on'],
    ...optional('permissions', parsePermissions(raw.permissions, `${where}.permissions`, fail)),
    env: scalarMap(raw.env, `${where}.env`, fail),
    outputs,
    steps,
    ...(raw['timeout-minutes'] !== undefined ? { timeoutMinutes: raw['timeout-minutes'] as Scalar } : {}),
    continueOnError: (raw['continue-on-error'] ?? false) as Scalar,
    ...optional('concurrency', parseConcurrency(raw.concurrency, `${where}.concurrency`, fail)),
    defaults: parseDefaults(raw.defaults, `${where}.defaults`, fail),
    unsupported,
  };
}

function parseStep(raw: unknown, index: number, where: string, fail: Fail): StepDef {
  if (!isObj(raw)) return fail(`${where} must be a mapping`);
  const hasRun = raw.run !== undefined;
  const hasUses = raw.uses !== undefined;
  if (hasRun === hasUses) fail(`${where} must have exactly one of \`run\` and \`uses\``);
  if (raw.id !== undefined && !(typeof raw.id === 'string' && JOB_ID.test(raw.id))) fail(`${where}.id is not a valid identifier`);
  return {
    index,
    ...(typeof raw.id === 'string' ? { id: raw.id } : {}),
    ...(raw.name !== undefined ? { name: String(raw.name) } : {}),
    ...(raw.if !== undefined ? { if: raw.if as Scalar } : {}),
    ...(hasRun ? { run: String(raw.run) } : {}),
    ...(hasUses ? { uses: String(raw.uses) } : {}),
    with: scalarMap(raw.with, `${where}.with`, fail),
    env: scalarMap(raw.env, `${where}.env`, fail),
    ...(typeof raw.shell === 'string' ? { shell: raw.shell } : {}),
    ...(typeof raw['working-directory'] === 'string' ? { workingDirectory: raw['working-directory'] } : {}),
    continueOnError: (raw['continue-on-error'] ?? false) as Scalar,
    ...(raw['timeout-minutes'] !== undefined ? { timeoutMinutes: raw['timeout-minutes'] as Scalar } : {}),
  };
}

function scalarMap(raw: unknown, where: string, fail: Fail): Record<string, Scalar> {
  if (raw === undefined || raw === null) return {};
  if (!isObj(raw)) return fail(`${where} must be a mapping`);
  const out: Record<string, Scalar> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!isScalar(v)) fail(`${where}.${k} must be a string, number or boolean`);
    out[k] = v as Scalar;
  }
  return out;
}

function parsePermissions(raw: unknown, where: string, fail: Fail): Permissions | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'read-all' || raw === 'write-all') return raw;
  if (raw === null || (isObj(raw) && Object.keys(raw).length === 0)) return {};
  if (!isObj(raw)) return fail(`${where} must be a mapping, read-all or write-all`);
  const out: Record<string, 'read' | 'write' | 'none'> = {};
  for (const [scope, level] of Object.entries(raw)) {
    if (!PERMISSION_SCOPES.has(scope)) fail(`${where}.${scope} is not a permission scope`);
    if (typeof level !== 'string' || !PERMISSION_LEVELS.has(level)) fail(`${where}.${scope} must be read, write or none`);
    out[scope] = level as 'read' | 'write' | 'none';
  }
  return out;
}

function parseConcurrency(raw: unknown, where: string, fail: Fail): Concurrency | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') return { group: raw, cancelInProgress: false };
  if (!isObj(raw) || typeof raw.group !== 'string') return fail(`${where} needs a \`group\``);
  return { group: raw.group, cancelInProgress: (raw['cancel-in-progress'] ?? false) as Scalar };
}

function parseDefaults(raw: unknown, where: string, fail: Fail): RunDefaults {
  if (raw === undefined || raw === null) return {};
  if (!isObj(raw)) return fail(`${where} must be a mapping`);
  const run = raw.run;
  if (run === undefined || run === null) return {};
  if (!isObj(run)) return fail(`${where}.run must be a mapping`);
  return {
    ...(typeof run.shell === 'string' ? { shell: run.shell } : {}),
    ...(typeof run['working-directory'] === 'string' ? { workingDirectory: run['working-directory'] } : {}),
  };
}

function checkNoCycle(jobs: JobDef[], fail: Fail): void {
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === 'done') return;
    if (state.get(id) === 'visiting') fail(`jobs depend on each other in a cycle: ${[...path, id].join(' → ')}`);
    state.set(id, 'visiting');
    for (const need of byId.get(id)?.needs ?? []) visit(need, [...path, id]);
    state.set(id, 'done');
  };
  for (const j of jobs) visit(j.id, []);
}
