// What the CLI and the MCP server share about local runs: starting one with checked
// inputs, reopening one by id, the events a person's answer, approval or cancel becomes,
// and a plain summary of a run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveInputs } from '../../engine/inputs.ts';
import { decide } from '../../engine/index.ts';
import type { Json, LimitRaise, RunEvent, RunState } from '../../engine/index.ts';
import type { Workflow } from '../../manifest/types.ts';
import { repoRoot } from './git.ts';
import { LocalRun, type RunOptions } from './run.ts';
import { listRunIds, RunStore } from './store.ts';
import { viewOfState, waitingFor, type RunView } from '../../record/view.ts';
import { findWorkflow, loadWorkflow } from './workflows.ts';
import { assertAgentsReady } from './agents-ready.ts';
import { localPullRequest, type LocalPullRequest } from './pull-request.ts';
import { missingThreadNotes } from './thread-reads.ts';
import { sanitizeUntrusted } from '../../engine/untrusted.ts';

export class InputError extends Error {}

/** `k=v` words into inputs (`issue=…` and `pr=…` stand in for a thread in startLocalRun). */
export function parseInputs(words: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq <= 0) throw new InputError(`--input ${JSON.stringify(w)}: expected key=value`);
    out[w.slice(0, eq)] = w.slice(eq + 1);
  }
  return out;
}

/** What a local run is bound to besides its inputs: `--base` for the `pr` stand-in. */
export interface StartOptions {
  /** The branch `pr=<branch>` would merge into (default: the default branch). */
  base?: string | undefined;
}

/**
 * Starts a run. Workflows written for GitHub read the thread the run lives on; locally two
 * inputs stand in for it when the workflow declares no input of that name: `issue=<text>`
 * (its first line the title, the rest the body) and `pr=<branch>` (a local branch as the pull
 * request: the run starts from its head, ./pull-request.ts).
 */
export async function startLocalRun(repoDir: string, workflow: string, raw: Record<string, Json>, opts: RunOptions, cwd = process.cwd(), start: StartOptions = {}): Promise<LocalRun> {
  const repo = repoRoot(repoDir);
  const file = findWorkflow(repo, workflow, cwd);
  const loaded = loadWorkflow(file);
  const inputs = { ...raw };
  let issue: Json | undefined;
  let pr: LocalPullRequest | undefined;
  const standsIn = (name: string): boolean => name in inputs && !(name in loaded.workflow.inputs);
  if (standsIn('issue') && standsIn('pr')) throw new InputError('give issue=… or pr=…, not both: a run lives on one issue or one pull request');
  if (standsIn('issue')) {
    const text = sanitizeUntrusted(String(inputs.issue));
    delete inputs.issue;
    const [title, ...rest] = text.split('\n');
    issue = { number: 0, title: title ?? '', body: rest.join('\n').trim() || text, labels: [] };
  }
  if (standsIn('pr')) {
    pr = localPullRequest(repo, String(inputs.pr), start.base);
    delete inputs.pr;
  } else if (start.base !== undefined) {
    throw new InputError(`--base names the branch a pull request merges into: give the pull request too (--input pr=<branch>)`);
  }
  const checked = resolveInputs(loaded.workflow, inputs);
  if (!checked.ok) throw new InputError(`${loaded.workflow.name}: ${checked.errors.join('; ')}`);
  // Before anything is started or asked: a missing agent CLI or key fails now, not after the questions.
  assertAgentsReady(loaded.workflow, opts.env, repo);
  for (const note of missingThreadNotes(loaded.workflow, { issue: issue !== undefined, pr: pr !== undefined })) opts.say(`note: ${note}`);
  return LocalRun.start({ repo, file, inputs, ...(issue !== undefined && { issue }), ...(pr !== undefined && { pr }) }, opts);
}

export function openStore(repoDir: string, runId: string): RunStore {
  return RunStore.open(repoRoot(repoDir), runId);
}

/** The most recent run of a repository, for `baton status` without an id. */
export function latestRunId(repoDir: string): string | null {
  const repo = repoRoot(repoDir);
  const ids = listRunIds(repo);
  let best: { id: string; at: number } | null = null;
  for (const id of ids) {
    const at = RunStore.open(repo, id).meta().createdAt;
    if (!best || at >= best.at) best = { id, at };
  }
  return best?.id ?? null;
}

export function answerEvent(state: RunState, workflow: Workflow, answers: string[], actor: string): RunEvent {
  const w = waitingFor(state, workflow).find((x) => x.kind === 'ask');
  if (!w) throw new InputError(`run ${state.runId} has no open questions${state.status !== 'running' ? ` (it is ${state.status})` : ''}`);
  if (answers.length === 0 || answers.length > w.questions.length) {
    throw new InputError(`step \`${w.step}\` has ${w.questions.length} question(s); give 1 to ${w.questions.length} answers in order (an empty "" skips one)`);
  }
  const at = Date.now();
  return { type: 'questions.answered', key: `${state.runId}/answer/${w.step}/${at}`, at, step: w.step, answers: answers.map((a) => (a.trim() === '' ? null : a)), actor, permission: 'admin' };
}

export function approveEvent(state: RunState, workflow: Workflow, actor: string): RunEvent {
  const w = waitingFor(state, workflow).find((x) => x.kind === 'approve');
  if (!w) throw new InputError(`run ${state.runId} is not waiting for an approval${state.status !== 'running' ? ` (it is ${state.status})` : ''}`);
  const at = Date.now();
  return { type: 'approval.given', key: `${state.runId}/approve/${w.step}/${at}`, at, step: w.step, actor, permission: 'admin' };
}

/**
 * `baton resume <run> --budget +2 …` (and MCP's `baton_resume` with a raise): a retry of `step` —
 * by default the one a limit stopped with its work kept — with its limits raised. The engine
 * decides the caps (engine/raise.ts) and says why when it refuses.
 */
export function retryEvent(state: RunState, workflow: Workflow, step: string | undefined, raise: LimitRaise, actor: string): RunEvent {
  const id = step ?? limitStopped(state);
  if (id === undefined) throw new InputError(`no step of run ${state.runId} was stopped by a limit with its work kept; name the step to retry (\`--step <id>\`)`);
  if (!workflow.steps.some((s) => s.id === id)) throw new InputError(`there is no step \`${id}\` in \`${workflow.name}\``);
  const at = Date.now();
  const event: RunEvent = { type: 'retry.requested', key: `${state.runId}/retry/${id}/${at}`, at, step: id, actor, permission: 'admin', ...(Object.keys(raise).length && { raise }) };
  // The engine's answer, decided purely ahead: a refusal (a cap, a running step) is the caller's error, not a line on the side.
  const refusal = decide(state, event, workflow).commands.find((c) => c.type === 'reply');
  if (refusal) throw new InputError(refusal.body.replace(/^@\S+, /, ''));
  return event;
}

/** The first finished step whose job a limit stopped with its checkpoint kept. */
function limitStopped(state: RunState): string | undefined {
  return state.steps.find((s) => (s.status === 'failed' || s.status === 'cancelled') && s.jobs.some((j) => j.limit && j.checkpoint !== null))?.id;
}

export function cancelEvent(state: RunState, actor: string): RunEvent {
  const at = Date.now();
  return { type: 'cancel.requested', key: `${state.runId}/cancel/${at}`, at, actor, permission: 'admin' };
}

/**
 * Cancels a run: the process driving it (if any) is asked to stop and record the cancel
 * itself (one writer per run), and is waited for; a run nobody drives is cancelled here,
 * against the workflow it started with, so an edited or removed file does not stop it.
 */
export async function cancelStoredRun(store: RunStore, opts: RunOptions, actor: string): Promise<void> {
  const holder = store.lock();
  if (holder !== null) {
    process.kill(holder, 'SIGTERM');
    const until = Date.now() + 30_000;
    while (store.holder() !== null && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    return;
  }
  try {
    const run = await LocalRun.resume(store, opts, false, 'as-started');
    if (run.state.status === 'running') {
      await run.feed([cancelEvent(run.state, actor)]);
      await run.loop();
    }
  } finally {
    store.unlock();
  }
}

export interface RunSummary extends RunView {
  /** The `gh pr create` line, once the pull-request step ran. */
  prCommand: string | null;
  recordFile: string;
}

export function summarize(store: RunStore, state: RunState, workflow: Workflow): RunSummary {
  const pr = join(store.dir, 'pull-request.sh');
  return {
    ...viewOfState(state, workflow),
    prCommand: existsSync(pr) ? readFileSync(pr, 'utf8').trim() : null,
    recordFile: join(store.dir, 'record.md'),
  };
}

/**
 * Reads a run without driving it: its saved state, with the workflow it started with (the
 * file's current content for a run recorded before baton kept that copy).
 */
export function readRun(store: RunStore): { state: RunState; workflow: Workflow } {
  const workflow = (store.startedWorkflow() ?? loadWorkflow(store.meta().file)).workflow;
  const state = store.state();
  if (!state) throw new Error(`run ${store.runId} has no state yet (${store.dir})`);
  return { state, workflow };
}

export { LocalRun };
