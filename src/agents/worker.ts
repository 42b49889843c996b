// One worker attempt, the same on an Actions runner and in a local worktree: build the
// prompt, run the agent CLI (or the step's shell command) in `cwd` under the step's time
// limit, extract and validate its result, re-prompt with the errors a bounded number of
// times, and list what it changed against `task.base` — always, even after a crash or a
// timeout, so that partial work is kept. No GitHub here: the caller uploads or applies.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { DispatchWorker } from '../engine/commands.ts';
import type { InfrastructureCause } from '../engine/events.ts';
import type { StopLimit } from '../engine/types.ts';
import { sandboxSummary } from '../engine/sandbox-summary.ts';
import type { Json } from '../manifest/expressions.ts';
import { backendFor } from './backends/index.ts';
import { addUsage, type AgentBackend, type Usage } from './backends/types.ts';
import { collectChanges, openCheckout, type Checkout, type DiffStatLine } from './changes.ts';
import { extractResult, type Extracted } from './extract.ts';
import { infrastructureCause } from './infrastructure.ts';
import { preflight, WorkerSetupError, type SetupPlace } from './preflight.ts';
import { runProcess, type ProcessResult } from './process.ts';
import { resolveMcpServers } from './mcp.ts';
import type { McpServers } from './backends/mcp-config.ts';
import { redactor, secretValues } from './redact.ts';
import { forkEnvironment } from './fork-environment.ts';
import { loginFileSecrets } from './login-secrets.ts';
import { readAgentConfig, restoreAgentConfig, RunBaseMissingError, withoutRestored, type AgentConfig } from './restore-agent-config.ts';
import { seal, type Sealed } from './leak-check.ts';
import { buildPrompt, buildReprompt } from './prompt.ts';
import { RESULT_VERSION, type ResultBundle, type WorkerResult } from './result.ts';
import { openAttemptSandbox, type AttemptSandbox } from './sandbox/attempt.ts';
import type { Resolve } from './sandbox/upstream.ts';
import { agentEnvironment, forkKeyRefusal, heldApis, keyScrub, modelUpstreams, planModelKeys, type KeyPlan, type KeyScrub } from './sandbox/proxy-keys.ts';
import { modelBaseUrl, type ModelApi } from './sandbox/proxy-models.ts';
import { CostMeter } from './sandbox/proxy-meter.ts';
import { meteredUsage, meterLines } from './sandbox/meter-report.ts';
import { BACKEND_IMPLS } from './backends/index.ts';
import { validateOutputs } from './validate-output.ts';

export interface WorkerOptions {
  /** The checkout (or worktree) at `task.base`. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Extra prompts after an unreadable or invalid result (default 2). */
  maxReprompts?: number;
  /** Stops the agent (e.g. the job is being cancelled); changes are still collected. */
  signal?: AbortSignal;
  now?: () => number;
  /** Between SIGTERM and SIGKILL when stopping an agent (default 3 s). */
  killGraceMs?: number;
  /**
   * Secrets of the caller the agent was not given (the job token of the Action's inputs…):
   * hidden from what the worker hands on, like those of `env`.
   */
  secrets?: string[];
  /** Where the agent runs, for the wording of setup failures (default: a GitHub worker job). */
  place?: SetupPlace;
  /**
   * Tests of the sandbox: the proxy's resolver, the names it may connect to loopback, the fence
   * record's path, and their stand-in model APIs' certificate authority.
   */
  sandbox?: { resolve?: Resolve; internalHosts?: readonly string[]; fenceStatePath?: string; modelCa?: string | Buffer };
}

/** The result bundle, plus what a summary of the attempt shows. */
export interface WorkerRun extends ResultBundle {
  /** The prompt of the first invocation (the command, for shell steps). */
  prompt: string;
  diffstat: DiffStatLine[];
}

type Status = WorkerResult['status'];

interface Outcome {
  status: Status;
  outputs: Json;
  error: string | null;
  usage: Usage;
  /** The backend failed before it could work (infrastructure.ts). */
  infrastructure?: InfrastructureCause;
  /** A limit stopped the agent (its turns, its time, its cost): what it changed is a checkpoint to resume from. */
  stopped?: StopLimit;
}

const SHELL = ['bash', '--noprofile', '--norc', '-eo', 'pipefail', '-c'];

export async function runWorker(task: DispatchWorker, opts: WorkerOptions): Promise<Sealed<WorkerRun>> {
  // A fork's code: the job's secrets other than the backend's own credentials are gone from here on.
  const fork = task.sandbox?.fork ? forkEnvironment(opts.env, task.backend?.uses ?? null) : null;
  // Its values stay hidden in what the worker hands on, as every secret of the job.
  if (fork) opts = { ...opts, env: fork.env, secrets: [...(opts.secrets ?? []), ...secretValues(opts.env)] };
  const now = opts.now ?? Date.now;
  const start = now();
  // Found before the agent runs: git, the object store and the base are not the agent's to change.
  let checkout: Checkout;
  try {
    checkout = openCheckout(opts.cwd, task.base);
  } catch (err) {
    throw new WorkerSetupError((err as Error).message);
  }
  const agent = task.prompt !== null && task.backend !== null;
  if (!agent && task.command === null) throw new WorkerSetupError(`step ${task.step}: the task has neither a prompt with an agent nor a command to run`);
  const backend = agent ? backendFor(task.backend!.uses) : null;
  if (backend) preflight(backend, task.backend!, opts.env, opts.cwd, opts.place);
  // The model credentials the proxy holds for the agent (sandbox/proxy-keys.ts): its login files
  // are not handed over then, and its environment gets placeholders. A run step or a `command`
  // agent holds none. Keys are looked for in the environment as the agent's processes would get
  // it; a gateway the key is sent to only in the worker job's and the agent's own (`agents.<name>.env`),
  // never a step's `env`, which may carry text from an issue.
  const jobEnv = { ...opts.env, ...(task.backend?.env ?? {}), ...task.env };
  let keys = task.sandbox ? planModelKeys(backend ?? BACKEND_IMPLS.command, jobEnv, true) : null;

  // The agent's MCP servers, their `${NAME}` references read from the job's environment — a model
  // key among them as the agent gets it (an MCP server runs as the agent).
  const mcpEnv = keys ? agentEnvironment(opts.env, keyScrub(keys, jobEnv)) : opts.env;
  const mcp = backend ? resolveMcpServers(task.agent ?? task.backend!.uses, task.backend!, mcpEnv) : null;
  // Where the proxy holds the model key, every model request passes it: it meters their cost
  // and refuses them past the attempt's cost cap (sandbox/proxy-meter.ts).
  const meter = keys?.held.length ? new CostMeter(task.costCap ?? null) : null;

  // The sandbox of this attempt (sandbox/attempt.ts): the proxy runs from here to the end, and
  // every process below is started through it. Tasks of older versions carry no request.
  const sandbox = task.sandbox
    ? await openAttemptSandbox({
        request: task.sandbox,
        agent: agent ? task.backend : null,
        workerEnv: opts.env,
        ...(backend?.behindProxy && { backendEnv: backend.behindProxy }),
        ...(backend && { loginFiles: keys?.held.length ? [] : backend.loginFiles }),
        ...(keys?.held.length && { models: { keys: keys.held, upstreams: modelUpstreams(keys, { ...opts.env, ...(task.backend?.env ?? {}) }), ...(opts.sandbox?.modelCa !== undefined && { ca: opts.sandbox.modelCa }), ...(meter && { meter }) } }),
        local: opts.place === 'local',
        ...(opts.sandbox?.resolve && { resolve: opts.sandbox.resolve }),
        ...(opts.sandbox?.internalHosts && { internalHosts: opts.sandbox.internalHosts }),
        ...(opts.sandbox?.fenceStatePath !== undefined && { fenceStatePath: opts.sandbox.fenceStatePath }),
      })
    : null;
  // No proxy, no held key; unfenced, the agent runs as the worker's user and can read the worker's environment.
  if (keys && !sandbox?.proxyUrl) keys = planModelKeys(backend ?? BACKEND_IMPLS.command, jobEnv, false);
  // A stranger's code and a credential the CLI itself keeps where the agent reads it: the agent
  // does not start. (Without the fence a fork run is refused by the sandbox itself: `required`.)
  const refusal = fork && backend && keys?.inAgent.length ? forkKeyRefusal(backend, keys.inAgent) : null;
  if (keys?.held.length && !sandbox?.fenced) keys.inAgent.push("the worker's environment: the agent runs as the worker's user, without the fence");
  try {
    const notes = fork ? [`baton: a fork's pull request: the agent gets no secret; its model key stays in the sandbox's proxy${fork.dropped.length ? ` (not handed on: ${fork.dropped.join(', ')})` : ''}`] : [];
    if (keys?.others.length) notes.push(`baton: other backends' model keys are not the agent's and were not handed on: ${keys.others.join(', ')}`);
    const scrub = keys ? keyScrub(keys, jobEnv) : { held: [], dropped: [] };
    // No proxy, no meter: the CLI's own report is what there is.
    return await attempt(task, opts, { checkout, backend, mcp, sandbox, keys, scrub, refusal, start, now, notes, meter: sandbox?.proxyUrl ? meter : null });
  } finally {
    await sandbox?.close();
  }
}

interface Prepared {
  checkout: Checkout;
  backend: AgentBackend | null;
  mcp: ReturnType<typeof resolveMcpServers> | null;
  sandbox: AttemptSandbox | null;
  /** Where the model credential is; null for a task without a sandbox request. */
  keys: KeyPlan | null;
  /** What no process of the attempt gets: the held keys (as placeholders), other backends' keys. */
  scrub: KeyScrub;
  /** Why the attempt must not start, before the sandbox's own refusal; null when it may. */
  refusal: string | null;
  start: number;
  now: () => number;
  /** Lines the transcript starts with. */
  notes: string[];
  /** The proxy's meter of the agent's model traffic; null when the proxy does not carry it (no held key). */
  meter: CostMeter | null;
}

async function attempt(task: DispatchWorker, opts: WorkerOptions, { checkout, backend, mcp, sandbox, keys, scrub, start, now, notes, meter, ...prepared }: Prepared): Promise<Sealed<WorkerRun>> {
  // Some CLIs' file tools reach only the checkout or a folder of their own: the temp folder
  // (prompt files, BATON_OUTPUT) goes where the backend says; it is gone before changes are listed.
  // Under the fence it is a folder the agent's user can reach by its path, and no one else.
  const tmpParent = backend?.tmpParent?.(opts.cwd, opts.env) ?? tmpdir();
  mkdirSync(tmpParent, { recursive: true });
  const tmpPrefix = tmpParent === opts.cwd ? '.baton-worker-' : 'baton-worker-';
  const tmp = sandbox ? sandbox.folder(tmpParent, tmpPrefix) : mkdtempSync(join(tmpParent, tmpPrefix));
  // Caches a CLI writes into the checkout for itself are not the agent's work.
  const scratch = (backend?.scratch ?? []).filter((name) => !existsSync(join(opts.cwd, name)));
  // Configuration baton writes for the CLI (MCP servers) goes to a folder of its own in the
  // system temp folder: never the checkout (opencode's tmp is there), never collected.
  const configDir = mcp ? (sandbox ? sandbox.folder(tmpdir(), 'baton-agent-config-') : mkdtempSync(join(tmpdir(), 'baton-agent-config-'))) : undefined;
  const outputFile = join(tmp, 'output.json');
  const limitMinutes = task.timeoutMinutes ?? task.backend?.timeoutMinutes ?? null;
  const deadline = limitMinutes === null ? null : start + limitMinutes * 60_000;
  const transcript: string[] = [...notes];
  // The door before the agent starts (and before each re-prompt): agent configuration as the
  // default branch's commit of the run's manifests has it (read once, before any agent ran).
  // A task of an older App that does not name it: the attempt's base — never on a fork run,
  // whose base is the fork's code.
  const configCommit = task.runBase || (task.sandbox?.fork ? null : checkout.base);
  let config: AgentConfig | undefined;
  const restore = (): void => {
    if (configCommit === null) throw new RunBaseMissingError("the task of a fork run names no commit to take agent configuration from (`runBase`), and the fork's own must not be used; update baton");
    config ??= readAgentConfig(checkout, configCommit);
    const r = restoreAgentConfig(checkout, config);
    if (r.removed.length) transcript.push(`baton: removed agent configuration the default branch does not have, before the agent started: ${r.removed.join(', ')}`);
  };
  const modelBaseUrls = sandbox?.proxyUrl && scrub.held.length ? heldApis(keys!, (api) => modelBaseUrl(sandbox.proxyUrl!, api)) : undefined;
  const ctx: Run = { task, opts, outputFile, deadline, now, transcript, tmp, restore, scrub, meter, ...(modelBaseUrls && { modelBaseUrls }), ...(mcp && { mcpServers: mcp.servers, configDir }), ...(sandbox && { sandbox }) };
  // A fork's agent whose CLI would hold its key is refused whatever else the machine lacks: that is what must change.
  const refusal = prepared.refusal ?? sandbox?.refusal ?? null;

  let outcome: Outcome;
  let prompt: string;
  try {
    if (refusal) {
      // Nothing starts: the step asked for protections this machine does not give, or a fork's agent would hold its key.
      prompt = backend ? buildPrompt(task, outputFile) : task.command!;
      transcript.push(`baton: ${refusal}`);
      outcome = { status: 'crashed', outputs: null, error: refusal, usage: {} };
    } else if (backend) {
      try {
        restore();
      } catch (err) {
        throw new WorkerSetupError((err as Error).message);
      }
      prompt = buildPrompt(task, outputFile);
      outcome = await runAgent(ctx, backend, prompt);
    } else {
      prompt = task.command!;
      outcome = await runShell(ctx);
    }
  } finally {
    // What the agent's user made with modes that keep the worker out comes back first.
    const handBack = sandbox?.handBack(opts.cwd);
    if (handBack) transcript.push(`baton: ${handBack}`);
    const remove = (dir: string): void => (sandbox ? sandbox.removeFolder(dir) : rmSync(dir, { recursive: true, force: true }));
    remove(tmp);
    if (configDir) remove(configDir);
    for (const name of scratch) rmSync(join(opts.cwd, name), { recursive: true, force: true });
  }

  // An agent that failed while its model API could not be reached: that is why, whatever it printed.
  const downApi = outcome.status !== 'succeeded' ? sandbox?.unreachableModelApi() : null;
  if (downApi) outcome = { ...outcome, error: `the agent's model API could not be reached through the sandbox's proxy: ${downApi}${outcome.error ? `; ${outcome.error}` : ''}` };
  const sandboxReport = sandbox ? await sandbox.finish(transcript) : null;
  // The cost is what the proxy metered, not what the CLI says of itself; the cap, a limit like the others.
  // A CLI that sent nothing through the proxy (a provider whose key it was not given here) keeps its own report.
  const metered = meter?.report();
  if (metered && metered.requests + metered.refused > 0) {
    outcome = { ...outcome, usage: meteredUsage(metered) };
    transcript.push(...meterLines(metered));
    if (metered.capReached && sandboxReport) sandboxReport.limit = 'cost';
  } else if (keys?.inAgent.length && backend && outcome.usage.costUsd === undefined) {
    // The CLI keeps its model key (copilot): its traffic never passes the meter, and it reports no cost.
    outcome = { ...outcome, usage: { ...outcome.usage, costUnmetered: 'key-in-agent' } };
  }
  if (sandboxReport && keys && (keys.held.length || keys.inAgent.length)) sandboxReport.modelKey = keys.inAgent.length ? { in: 'agent', why: keys.inAgent.join('; ') } : { in: 'proxy' };
  if (sandboxReport) transcript.push(`baton: ${sandboxSummary(sandboxReport)}`);

  // Collected whatever happened above: a crash or a timeout keeps its partial work.
  let changes: ReturnType<typeof collectChanges> = { changes: [], files: new Map(), diffstat: [], warnings: [] };
  try {
    // What the restore put back and the agent left alone is not the agent's work.
    changes = config ? withoutRestored(collectChanges(checkout), config) : collectChanges(checkout);
    for (const w of changes.warnings) transcript.push(`baton: ${w}`);
  } catch (err) {
    const why = `baton could not list the changes in ${opts.cwd}: ${(err as Error).message}`;
    transcript.push(why);
    outcome = { ...outcome, status: outcome.status === 'succeeded' ? 'crashed' : outcome.status, error: outcome.error ? `${outcome.error}; ${why}` : why };
  }
  // A CLI that changed files did get to work, whatever it printed.
  if (outcome.infrastructure === 'cli-crashed' && changes.changes.length) delete outcome.infrastructure;

  const result: WorkerResult = {
    version: RESULT_VERSION,
    run: task.runId,
    step: task.step,
    slot: task.slot,
    attempt: task.attempt,
    status: outcome.status,
    outputs: outcome.outputs,
    error: outcome.error,
    usage: outcome.usage,
    base: task.base,
    changes: changes.changes,
    backend: task.backend?.uses ?? 'command',
    durationMs: Math.max(0, now() - start),
    ...(outcome.infrastructure && { infrastructure: outcome.infrastructure }),
    ...(outcome.status !== 'succeeded' && outcome.stopped && { limit: outcome.stopped }),
    ...(sandboxReport && { sandbox: sandboxReport }),
  };
  // Nothing the worker hands on carries a secret of the job, plain or encoded: not the
  // transcript, not the error, not the outputs (they reach the public status comment), not
  // the changed files (they reach the pull request).
  const secrets = [
    ...secretValues({ ...opts.env, ...task.env, ...(task.backend?.env ?? {}) }),
    ...(opts.secrets ?? []),
    ...(mcp?.secrets ?? []),
    // The agent can read its CLI's login files (fenced, they are handed to its home): their tokens are the job's secrets too.
    ...loginFileSecrets(opts.env.HOME, backend?.loginFiles ?? []),
  ];
  const hide = redactor(secrets);
  if (result.error) result.error = hide.text(result.error);
  result.outputs = hide.json(result.outputs);
  const files = new Map<string, Uint8Array>();
  for (const [path, content] of changes.files) {
    const hidden = hide.bytes(content);
    if (hidden !== content) transcript.push(`baton: ${path} contained a secret of the job; it was replaced with ***`);
    files.set(path, hidden);
  }
  const bundle: WorkerRun = { result, files, transcript: hide.text(transcript.join('\n')), prompt, diffstat: changes.diffstat };
  // Redaction masked the forms it knows; the door (leak-check.ts) refuses anything that
  // still carries a secret — a path, a reversed output, a UTF-16 file — before it leaves.
  return seal(bundle, secrets, (error) => withheld(result, error));
}

/** What is handed on instead of a result that carried a secret: the failure, and nothing the agent wrote. */
function withheld(r: WorkerResult, error: string): WorkerRun {
  const result: WorkerResult = { ...r, status: 'refused', outputs: null, error, changes: [] };
  delete result.infrastructure;
  delete result.limit;
  return { result, files: new Map(), transcript: `baton: ${error}\n`, prompt: '(withheld with the result)', diffstat: [] };
}

interface Run {
  task: DispatchWorker;
  opts: WorkerOptions;
  outputFile: string;
  deadline: number | null;
  now: () => number;
  transcript: string[];
  tmp: string;
  mcpServers?: McpServers;
  configDir?: string;
  /** Puts agent configuration back as the default branch has it (restore-agent-config.ts). */
  restore: () => void;
  sandbox?: AttemptSandbox;
  /** The model credentials the proxy holds (every process gets their placeholders) and the other backends' keys (left out). */
  scrub: KeyScrub;
  /** Each held key's API and its base URL on the proxy, for the CLI's own setting. */
  modelBaseUrls?: Partial<Record<ModelApi, string>>;
  meter: CostMeter | null;
}

function environment(run: Run, extra: Record<string, string>): NodeJS.ProcessEnv {
  const { task } = run;
  // The last door of the agent's environment: where the proxy holds a key, no variable carries it.
  return agentEnvironment({
    ...run.opts.env,
    ...(task.backend?.env ?? {}),
    ...task.env,
    ...extra,
    // The proxy's variables last: a manifest's HTTPS_PROXY does not route around it.
    ...(run.sandbox?.env ?? {}),
    BATON_OUTPUT: run.outputFile,
    BATON_RUN: task.runId,
    BATON_STEP: task.step,
    BATON_SLOT: task.slot,
    BATON_ATTEMPT: String(task.attempt),
    BATON_INDEX: task.index === null ? '' : String(task.index),
    BATON_ITEM: task.item === null ? '' : JSON.stringify(task.item),
  }, run.scrub);
}

/** Runs one process under what is left of the step's time, recording it in the transcript. */
async function invoke(run: Run, argv: string[], stdin: string | undefined, env: NodeJS.ProcessEnv): Promise<ProcessResult> {
  const left = run.deadline === null ? null : run.deadline - run.now();
  const shown = argv.map((a) => (a.length > 200 || a.includes('\n') ? `<${a.length} characters>` : a)).join(' ');
  run.transcript.push(`$ ${shown}${stdin !== undefined ? ` <<< (${stdin.length} characters on stdin)` : ''}`);
  // Anything from an earlier invocation must not pass for this one's answer.
  rmSync(run.outputFile, { force: true });
  const began = run.now();
  const r =
    left !== null && left <= 0
      ? ({ code: null, signal: null, stdout: '', stderr: '', timedOut: true, aborted: false, spawnError: null } satisfies ProcessResult)
      : await runProcess(argv, { cwd: run.opts.cwd, env, stdin, timeoutMs: left, signal: run.opts.signal, killGraceMs: run.opts.killGraceMs, ...(run.sandbox?.fence && { fence: run.sandbox.fence }) });
  if (r.stdout) run.transcript.push('--- stdout ---', r.stdout.replace(/\n$/, ''));
  if (r.stderr) run.transcript.push('--- stderr ---', r.stderr.replace(/\n$/, ''));
  const secs = ((run.now() - began) / 1000).toFixed(1);
  const end = r.timedOut ? 'killed at the time limit' : r.aborted ? 'stopped (cancelled)' : r.spawnError ? `could not start: ${r.spawnError.message}` : r.signal ? `killed by ${r.signal}` : `exit ${r.code}`;
  run.transcript.push(`--- ${end} after ${secs}s ---`, '');
  return r;
}

/** The failure a finished process stands for, or null when it exited 0; `limit` when a resource limit of the sandbox ended it. */
function failure(run: Run, name: string, r: ProcessResult): (Outcome & { limit?: true }) | null {
  const usage = {};
  if (r.timedOut) return { status: 'timed-out', outputs: null, error: `${name} did not finish within the step's ${minutes(run)} and was stopped; its changes so far are kept`, usage, stopped: 'time' };
  if (r.aborted) {
    const reason = run.opts.signal?.reason;
    return { status: 'crashed', outputs: null, error: `${name} was stopped: ${typeof reason === 'string' ? reason : 'the worker was cancelled'}; its changes so far are kept`, usage };
  }
  // A resource limit of the sandbox ended it: that is the reason, whatever it printed.
  const limit = run.sandbox?.limit(r);
  if (limit) return { status: 'crashed', outputs: null, error: limit, usage, limit: true };
  if (r.spawnError) return { status: 'crashed', outputs: null, error: `${name} could not be started: ${r.spawnError.message}`, usage };
  if (r.code !== 0) {
    const last = lastLines(r.stderr || r.stdout);
    return { status: 'crashed', outputs: null, error: `${name} ${r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`}${last ? `: ${last}` : ''}`, usage };
  }
  return null;
}

function minutes(run: Run): string {
  const m = run.task.timeoutMinutes ?? run.task.backend?.timeoutMinutes ?? 0;
  return m >= 1 ? `${m} minute${m === 1 ? '' : 's'}` : `${Math.round(m * 60_000)} ms`;
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(0, 500);
}

function readOutputFile(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

async function runAgent(run: Run, backend: AgentBackend, firstPrompt: string): Promise<Outcome> {
  const { task } = run;
  const spec = task.backend!;
  const tries = 1 + Math.max(0, run.opts.maxReprompts ?? 2);
  let usage: Usage = {};
  let prompt = firstPrompt;
  let lastError = '';
  for (let i = 0; i < tries; i++) {
    // A re-prompted CLI reads its configuration again: what the last invocation planted goes.
    if (i > 0) run.restore();
    const inv = backend.invocation(spec, prompt, {
      tmpDir: run.tmp,
      writes: task.writes,
      outputsSchema: task.outputsSchema,
      // Under the fence the CLI runs as the agent's user, not as the worker's root.
      root: !run.sandbox?.fenced && process.getuid?.() === 0,
      ...(run.mcpServers && { mcpServers: run.mcpServers, configDir: run.configDir }),
      ...(run.modelBaseUrls && { modelBaseUrls: run.modelBaseUrls }),
    });
    for (const [path, content] of Object.entries(inv.files ?? {})) {
      mkdirSync(dirname(path), { recursive: true });
      // Only the worker's user may read them: an MCP configuration holds the secrets it was given.
      // Under the fence the agent's user reads them, in a folder only it is told the path of.
      writeFileSync(path, content, { mode: run.sandbox?.fenced ? 0o644 : 0o600 });
    }
    const r = await invoke(run, inv.argv, inv.stdin, environment(run, inv.env));
    const parsed = r.spawnError || r.timedOut ? { finalMessage: '', usage: {} } : backend.parse(r.stdout, r.stderr, spec);
    usage = addUsage(usage, parsed.usage);
    // The proxy refused a model request at the cost cap: that ends the attempt, as a limit, whatever the CLI made of it.
    const capped = run.meter?.report().capMessage;
    if (capped) return { status: 'crashed', outputs: null, error: `cost cap reached: ${capped.replace(/^baton: cost cap reached — /, '')}`, usage, stopped: 'cost' };
    const failed = failure(run, inv.argv[0]!, r);
    const infra = (): Pick<Outcome, 'infrastructure'> => {
      const cause = infrastructureCause({ backend: backend.name, code: r.code, stdout: r.stdout, stderr: r.stderr, reported: parsed.error, spawnError: r.spawnError, timedOut: r.timedOut, aborted: r.aborted });
      return cause ? { infrastructure: cause } : {};
    };
    // A CLI that exits non-zero with a failure in its own format (gemini's JSON on stderr)
    // says it better than its last lines; not better than the limit that ended it.
    // The CLI's own limit (its turns) that ended it: the attempt is resumable with that limit raised.
    const stopped = parsed.limit ? { stopped: parsed.limit } : {};
    if (failed) {
      const { limit, ...outcome } = failed;
      return { ...outcome, ...(!limit && parsed.error && r.code ? { error: `${inv.argv[0]} exited with code ${r.code}: ${parsed.error}` } : {}), usage, ...stopped, ...infra() };
    }
    if (parsed.error) return { status: 'crashed', outputs: null, error: parsed.error, usage, ...stopped, ...infra() };

    // The BATON_OUTPUT file first (the agent wrote it on purpose), then the CLI's own
    // structured output, then the JSON at the end of the final message.
    const file = readOutputFile(run.outputFile);
    const extracted: Extracted = parsed.structured !== undefined && (file ?? '').trim() === '' ? { ok: true, value: parsed.structured as Json, source: 'structured' } : extractResult(file, parsed.finalMessage);
    if (!extracted.ok) {
      if (task.outputsSchema === null) return { status: 'succeeded', outputs: null, error: null, usage };
      lastError = extracted.error;
      prompt = buildReprompt(task, run.outputFile, lastError, null);
      continue;
    }
    const invalid = validateOutputs(task.outputsSchema, extracted.value);
    if (invalid === null) return { status: 'succeeded', outputs: extracted.value, error: null, usage };
    lastError = invalid;
    prompt = buildReprompt(task, run.outputFile, invalid, JSON.stringify(extracted.value, null, 2));
  }
  return { status: 'invalid-output', outputs: null, error: `no valid result after ${tries} prompt${tries === 1 ? '' : 's'}: ${lastError}`, usage };
}

/** A `run:` step (or its fix round): the shell command, exit 0 = done, BATON_OUTPUT optional. */
async function runShell(run: Run): Promise<Outcome> {
  const r = await invoke(run, [...SHELL, run.task.command!], undefined, environment(run, {}));
  const failed = failure(run, 'the command', r);
  if (failed) {
    const { limit: _limit, ...outcome } = failed;
    return outcome;
  }
  const file = readOutputFile(run.outputFile);
  const schema = run.task.outputsSchema;
  if (file === undefined || file.trim() === '') {
    if (schema === null) return { status: 'succeeded', outputs: null, error: null, usage: {} };
    return { status: 'invalid-output', outputs: null, error: 'the command exited 0 but wrote no result to the file named by BATON_OUTPUT, and the step has an outputs schema', usage: {} };
  }
  const extracted = extractResult(file, '');
  if (!extracted.ok) return { status: 'invalid-output', outputs: null, error: extracted.error, usage: {} };
  const invalid = validateOutputs(schema, extracted.value);
  if (invalid !== null) return { status: 'invalid-output', outputs: null, error: invalid, usage: {} };
  return { status: 'succeeded', outputs: extracted.value, error: null, usage: {} };
}
