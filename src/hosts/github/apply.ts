// A finished worker run → the engine's worker.finished / worker.failed. The worker job
// held a read-only token; its result artifact is read here (paths checked), and its
// changed files become one commit through the Git Data API (tree on the base commit's
// tree → commit with the base as parent). No ref is written for a result that succeeded:
// the merge that follows points the run branch at it (merge.ts). Only a failed attempt's
// partial work gets its step branch, because the next attempt starts from it.
import { InvalidResultError, RESULT_ARTIFACT, readResultZip, type ResultBundle } from '../../agents/result.ts';
import { artifactTooLarge } from '../../agents/result-caps.ts';
import type { JobState, RunEvent, RunState, WorkerFailed, WorkerFinished } from '../../engine/index.ts';
import type { SandboxReport } from '../../engine/sandbox.ts';
import { fixBranch, stepBranch, stepState } from '../../engine/index.ts';
import { messageOf, refusedForGood, statusOf, type GitHubClient, type RepoContext } from './client.ts';
import { MAKER_TRAILER } from './lease.ts';
import { keepStepCommit } from './step-refs.ts';
import { readRef } from './git-refs.ts';
import type { CommitCache } from './memory.ts';
import { checkTextBytes, MAX_CHECK_TEXT_BYTES } from './limits.ts';
import { tooLargeMessage } from './outputs.ts';
import type { WorkerRunName } from './run-id.ts';
import { cancelCause, orGone, WorkerRunGone, type CancelCause } from './worker-run.ts';
import { foreignWorkerRun, type WorkerRunFacts } from './worker-provenance.ts';
import { listedPath, protectedPathKind, protectedPathsMessage } from '../../agents/protected-paths.ts';

/** What a step lets its results change among protected paths: all (`allow`), those it lists, or none. */
type ProtectedAllowance = boolean | readonly string[];
import { resolveLink, symlinkProblem } from '../../agents/symlink-target.ts';
import type { Workflow } from '../../manifest/types.ts';
import { workflowFilesRemedy, workflowRefusal, writesAsOf, type WritesAs } from './workflow-files.ts';
import { filesRefusal, ownStamp, skewRefusal, type Stamp } from '../../compat.ts';

/** A finished run of the worker workflow: who started it, where, and how it ended. */
export interface CompletedWorkerRun extends WorkerRunFacts {
  conclusion: string | null;
}

/** The fields every event about one attempt's result carries. */
type AttemptKey = Pick<WorkerFailed, 'key' | 'at' | 'step' | 'slot' | 'attempt'>;

/** Everything that fails the attempt without being a bug of baton. */
class AttemptError extends Error {}

/** A result that is not written because baton's rules or GitHub's forbid it: the attempt is `refused`. */
class RefusedError extends AttemptError {}

const reasonOf = (err: AttemptError): WorkerFailed['reason'] => (err instanceof RefusedError ? 'refused' : 'crashed');

export async function collectWorkerResult(
  gh: RepoContext,
  commits: CommitCache,
  state: RunState,
  ref: WorkerRunName,
  run: CompletedWorkerRun,
  at: number,
  workflow: Workflow,
  /**
   * The baton the run is driven by, which dispatched the attempt: this process (the App, or
   * baton.yml's run job), or for the apply job the stamp of the task it was dispatched with.
   */
  runStamp: Stamp | null = ownStamp(),
): Promise<RunEvent[]> {
  const job = jobOf(state, ref);
  if (!job || job.status !== 'running') return []; // stale or already applied: nothing to fetch
  // Only the run baton dispatched may move the attempt (callers say why when they ignore one).
  if (foreignWorkerRun(gh, job.workflowRunId, run)) return [];
  const key = `worker-run:${run.id}/${ref.attempt}`;
  const base = { key, at, step: ref.step, slot: ref.slot, attempt: ref.attempt };
  const failed = (reason: WorkerFailed['reason'], error: string, checkpoint: string | null = null): RunEvent[] => [
    { type: 'worker.failed', ...base, reason, error, checkpoint },
  ];
  // An apply job of another baton than the run's writes nothing: it says so in the record (compat.ts).
  const skewed = skewRefusal(runStamp, ownStamp(), 'The apply job of the worker workflow', ref.step);
  if (skewed) return failed('refused', skewed);
  try {
    let bundle: ResultBundle | undefined;
    try {
      bundle = await downloadResult(gh, run.id);
    } catch (err) {
      if (!(err instanceof AttemptError)) throw err;
      const cause = await causeOf(gh, run);
      return failed(cause?.reason ?? reasonOf(err), err.message);
    }
    if (!bundle) {
      const cause = await causeOf(gh, run);
      return failed(cause?.reason ?? 'crashed', `the worker job ended (${run.conclusion ?? 'unknown'}) without uploading its ${RESULT_ARTIFACT} artifact${cause ? `: ${cause.error}` : ''}`);
    }
    return await applyBundle(gh, commits, state, ref, run, job, bundle, base, mayChangeProtected(workflow, ref, job), runStamp!);
  } catch (err) {
    // Deleted by someone or expired with the retention: the attempt failed, the run goes on.
    if (err instanceof WorkerRunGone) return failed('gone', err.message);
    throw err;
  }
}

/** The failed event of an attempt whose worker run answers 404 (deleted or expired), if it is still running. */
export function workerRunGone(state: RunState, ref: WorkerRunName, runId: number, at: number): RunEvent[] {
  const job = jobOf(state, ref);
  if (!job || job.status !== 'running') return [];
  const error = new WorkerRunGone(runId).message;
  return [{ type: 'worker.failed', key: `worker-run:${runId}/${ref.attempt}`, at, step: ref.step, slot: ref.slot, attempt: ref.attempt, reason: 'gone', error, checkpoint: null }];
}

/** Why a run that did not succeed ended: a time limit, a cancel, or (null) a crash. */
async function causeOf(gh: RepoContext, run: CompletedWorkerRun): Promise<CancelCause | null> {
  if (run.conclusion === 'cancelled') return cancelCause(gh, run.id);
  if (run.conclusion === 'timed_out') return { reason: 'timed-out', error: `worker run ${run.id} timed out` };
  return null;
}

async function applyBundle(
  gh: RepoContext,
  commits: CommitCache,
  state: RunState,
  ref: WorkerRunName,
  run: CompletedWorkerRun,
  job: JobState,
  bundle: ResultBundle,
  base: AttemptKey,
  allowProtected: ProtectedAllowance,
  runStamp: Stamp,
): Promise<RunEvent[]> {
  const failed = (reason: WorkerFailed['reason'], error: string): RunEvent[] => [{ type: 'worker.failed', ...base, reason, error, checkpoint: null }];
  const r = bundle.result;
  if (r.run !== state.runId || r.step !== ref.step || r.slot !== ref.slot || r.attempt !== ref.attempt) {
    return failed('crashed', `the result artifact is for ${r.run} ${r.step}[${r.slot}] #${r.attempt}, not for this attempt`);
  }
  // A worker of another baton than the run's, or under workflow files too old for it: nothing
  // of its result is written, and the record names both versions and `baton update` (compat.ts).
  const skewed = skewRefusal(runStamp, r.baton ?? null, 'The worker', ref.step) ?? filesRefusal(runStamp, r.baton?.files ?? null, ref.step);
  if (skewed) return [{ type: 'worker.failed', ...base, reason: 'refused', error: skewed, checkpoint: null, usage: r.usage, ...sandboxOf(r) }];
  // Nothing of a refused result is written: not even as a checkpoint for the next attempt.
  const refused = refusedChanges(bundle, allowProtected, writesAsOf(gh));
  if (refused) return [{ type: 'worker.failed', ...base, reason: 'refused', error: refused, checkpoint: null, usage: r.usage, ...sandboxOf(r) }];
  const branch = branchOf(state, ref, job);
  let commit: string | null = null;
  if (r.changes.length && branch) {
    try {
      // The trailer names the process that made the commit: a claim pointing at it is that process's (lease.ts).
      commit = await commitChanges(gh, commits, bundle, job.base ?? r.base, `baton ${state.runId}: ${ref.step}${ref.slot === '0' ? '' : `[${ref.slot}]`} attempt ${ref.attempt}\n\n${MAKER_TRAILER}${commits.maker}`);
    } catch (err) {
      if (!(err instanceof AttemptError)) throw err;
      return [{ type: 'worker.failed', ...base, reason: reasonOf(err), error: err.message, checkpoint: null, usage: r.usage, ...sandboxOf(r) }];
    }
  }
  const outcome = await outcomeOf(gh, run, r, base, commit);
  // The next attempt starts from a failed one's checkpoint, fetched by sha: a commit no ref
  // points at may be pruned by GitHub, so the step branch keeps it.
  if (outcome.type === 'worker.failed' && outcome.checkpoint && branch) {
    // A limit that stopped the agent makes the checkpoint the place to resume from (engine/raise.ts).
    const stopped: WorkerFailed = { ...outcome, ...(r.limit && { limit: r.limit }), kept: r.changes.map((c) => c.path) };
    return [await keepCheckpoint(gh, bundle, branch, stopped)];
  }
  return [outcome];
}

/** The attempt's sandbox report, for its record (result.ts checked and bounded it). */
const sandboxOf = (r: ResultBundle['result']): { sandbox?: SandboxReport } => (r.sandbox ? { sandbox: r.sandbox } : {});

/** The engine's event for a result that was not refused, `commit` holding its changes (if any). */
async function outcomeOf(
  gh: RepoContext,
  run: CompletedWorkerRun,
  r: ResultBundle['result'],
  base: AttemptKey,
  commit: string | null,
): Promise<WorkerFinished | WorkerFailed> {
  const usage = r.usage;
  const sb = sandboxOf(r);
  if (r.status === 'succeeded') {
    // An output is kept whole or not at all: one too large for a check run's text (where
    // large outputs go) fails the attempt and says why, rather than be lost.
    const bytes = checkTextBytes(JSON.stringify(r.outputs));
    if (bytes > MAX_CHECK_TEXT_BYTES) return { type: 'worker.failed', ...base, reason: 'crashed', error: tooLargeMessage(base.step, bytes), checkpoint: commit, usage, ...sb };
    return { type: 'worker.finished', ...base, outputs: r.outputs, commit, usage, ...sb };
  }
  if (r.status === 'invalid-output') return { type: 'worker.failed', ...base, reason: 'crashed', error: r.error ?? 'the agent gave no valid result', checkpoint: commit, usage, ...sb };
  // The agent was stopped because its job was cancelled: by its time limit or by someone.
  const cause = await causeOf(gh, run);
  if (cause) return { type: 'worker.failed', ...base, reason: cause.reason, error: `${cause.error}${r.error ? `; ${r.error}` : ''}`, checkpoint: commit, usage, ...sb };
  const infrastructure = r.status === 'crashed' && r.infrastructure ? { infrastructure: r.infrastructure } : {};
  return { type: 'worker.failed', ...base, reason: r.status, error: r.error ?? `the agent ${r.status}`, checkpoint: commit, usage, ...infrastructure, ...sb };
}

/**
 * Points the step branch at a failed attempt's checkpoint. When GitHub refuses that for
 * good, the attempt still fails as it did, without a checkpoint (the next attempt starts
 * from the run branch), and says why its partial work was not kept.
 */
async function keepCheckpoint(gh: RepoContext, bundle: ResultBundle, branch: string, failure: WorkerFailed): Promise<WorkerFailed> {
  const { kept: _kept, ...unkept } = failure;
  try {
    const ref = await keepStepCommit(gh, branch, failure.checkpoint!);
    // Kept is a deliverable like any other: read back, never taken on the write's word. A ref
    // another writer moved meanwhile does not hold this attempt's work, and the record must not say it does.
    const holds = await readRef(gh, ref);
    if (holds === failure.checkpoint) return failure;
    return { ...unkept, checkpoint: null, error: `${failure.error}; its partial work was not kept: ${ref} points at ${holds === null ? 'nothing' : holds.slice(0, 7)}, not at the attempt's commit ${failure.checkpoint!.slice(0, 7)}, when read back` };
  } catch (err) {
    const refusal = refusalOf(gh, err, bundle, branch);
    if (!(refusal instanceof AttemptError)) throw refusal;
    return { ...unkept, checkpoint: null, error: `${failure.error}; its partial work was not kept: ${refusal.message}` };
  }
}

/**
 * Why the result's changes may not be written, if so: a symlink leaving the repository
 * (always), or changes to protected paths the step did not opt in to (protected-paths.ts).
 * `writesAs` says what workflow files would take beyond opting in, in the run's mode.
 */
export function refusedChanges(bundle: ResultBundle, allowProtected: ProtectedAllowance, writesAs: WritesAs = 'app'): string | undefined {
  const allowed = (path: string): boolean => allowProtected === true || (Array.isArray(allowProtected) && listedPath(path, allowProtected));
  const links: string[] = [];
  const guarded: { path: string; what: string }[] = [];
  for (const c of bundle.result.changes) {
    const what = protectedPathKind(c.path);
    if (what && !allowed(c.path)) guarded.push({ path: c.path, what });
    if (c.status === 'deleted' || c.mode !== '120000') continue;
    const target = Buffer.from(bundle.files.get(c.path) ?? new Uint8Array()).toString('utf8');
    const problem = symlinkProblem(c.path, target);
    if (problem) links.push(`${c.path} → ${JSON.stringify(target)} (${problem})`);
    else {
      const link = resolveLink(c.path, target);
      const pointsTo = protectedPathKind(link);
      if (pointsTo && !what && !allowed(link)) guarded.push({ path: `${c.path} → ${target}`, what: `a symlink to ${pointsTo}` });
    }
  }
  if (links.length) return `the worker's result holds symlinks that leave the repository, which baton never writes: ${links.join(', ')}`;
  if (guarded.length) return protectedPathsMessage(guarded, workflowFilesRemedy(writesAs));
  return undefined;
}

/** Whether the step the job works for lets its results change protected paths (a fix round: the step it fixes). */
function mayChangeProtected(workflow: Workflow, ref: WorkerRunName, job: JobState): ProtectedAllowance {
  const step = workflow.steps.find((s) => s.id === ref.step);
  if (!step) return false;
  const writer = job.kind === 'fix' && 'fix' in step && step.fix ? workflow.steps.find((s) => s.id === step.fix) : step;
  return writer?.allowProtectedPaths ?? false;
}

export function jobOf(state: RunState, ref: WorkerRunName): JobState | undefined {
  const job = stepState(state, ref.step)?.jobs.find((j) => j.slot === ref.slot);
  return job && job.attempt === ref.attempt ? job : undefined;
}

function branchOf(state: RunState, ref: WorkerRunName, job: JobState): string | null {
  if (job.kind === 'review') return null;
  return job.kind === 'fix' ? fixBranch(state.runId, ref.step, Number(ref.slot.slice('fix-'.length))) : stepBranch(state.runId, ref.step, job.index);
}

/** Where a worker's result artifact is read from: the App's installation, or a person's token (`baton logs`). */
export type ResultSource = Pick<RepoContext, 'owner' | 'repo'> & { octokit: Pick<GitHubClient, 'request'> };

/**
 * The result bundle worker run `runId` uploaded (result, files, transcript), or undefined
 * when it uploaded none (or it expired). A 404 for the run: WorkerRunGone; a bundle that
 * fails its checks: an error saying why.
 */
export async function downloadResult(gh: ResultSource, runId: number): Promise<ResultBundle | undefined> {
  const list = await orGone(runId, () => gh.octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { owner: gh.owner, repo: gh.repo, run_id: runId, name: RESULT_ARTIFACT }));
  const artifact = list.data.artifacts.find((a) => a.name === RESULT_ARTIFACT && !a.expired);
  if (!artifact) return undefined;
  // Refused by its size before a byte is fetched (result-caps.ts); the inflated size is capped while reading.
  const tooLarge = artifactTooLarge(artifact.size_in_bytes);
  if (tooLarge) throw new RefusedError(tooLarge);
  const zip = await orGone(runId, () =>
    gh.octokit.request('GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { owner: gh.owner, repo: gh.repo, artifact_id: artifact.id, archive_format: 'zip' }),
  );
  const bytes = new Uint8Array(zip.data as ArrayBuffer);
  const grown = artifactTooLarge(bytes.byteLength);
  if (grown) throw new RefusedError(grown);
  try {
    return readResultZip(bytes);
  } catch (err) {
    if (err instanceof InvalidResultError) throw new RefusedError(`the worker's result was refused: ${err.message}`);
    throw err;
  }
}

/**
 * One commit with the worker's changes on top of `base`, on no ref yet: the merge or the
 * checkpoint's step branch points at it next. A crash in between leaves it unreferenced,
 * and the redelivered event (the record still shows the attempt running) makes it again.
 */
async function commitChanges(gh: RepoContext, commits: CommitCache, bundle: ResultBundle, base: string, message: string): Promise<string> {
  const o = { owner: gh.owner, repo: gh.repo };
  let baseTree = commits.tree(base);
  if (!baseTree) baseTree = (await gh.octokit.request('GET /repos/{owner}/{repo}/git/commits/{commit_sha}', { ...o, commit_sha: base })).data.tree.sha;
  const tree: { path: string; mode: '100644' | '100755' | '120000'; type: 'blob'; content?: string; sha?: string | null }[] = [];
  for (const change of bundle.result.changes) {
    if (change.status === 'deleted') {
      tree.push({ path: change.path, mode: change.mode, type: 'blob', sha: null });
      continue;
    }
    const content = bundle.files.get(change.path)!;
    const text = Buffer.from(content).toString('utf8');
    if (Buffer.from(text, 'utf8').equals(Buffer.from(content))) {
      tree.push({ path: change.path, mode: change.mode, type: 'blob', content: text }); // text inline: no blob request
    } else {
      const blob = await gh.octokit.request('POST /repos/{owner}/{repo}/git/blobs', { ...o, content: Buffer.from(content).toString('base64'), encoding: 'base64' });
      tree.push({ path: change.path, mode: change.mode, type: 'blob', sha: blob.data.sha });
    }
  }
  let newTree: string;
  try {
    newTree = (await gh.octokit.request('POST /repos/{owner}/{repo}/git/trees', { ...o, base_tree: baseTree, tree })).data.sha;
  } catch (err) {
    if (statusOf(err) === 422) throw new AttemptError(`the worker's changes do not apply as a tree: ${messageOf(err)}`);
    throw refusalOf(gh, err, bundle);
  }
  try {
    const commit = (await gh.octokit.request('POST /repos/{owner}/{repo}/git/commits', { ...o, message, tree: newTree, parents: [base] })).data.sha;
    commits.remember(commit, newTree);
    return commit;
  } catch (err) {
    throw refusalOf(gh, err, bundle);
  }
}

/**
 * A write GitHub refused for good (a 4xx that waiting does not cure) becomes a refused
 * attempt saying what and why: workflow files without the `workflows` permission (answered
 * 403 at the tree or 404 at the commit: workflow-files.ts), a protected branch, a ruleset.
 * Anything else (5xx, rate limits, expired credentials) is rethrown, so the event is retried.
 */
function refusalOf(gh: RepoContext, err: unknown, bundle: ResultBundle, branch?: string): unknown {
  if (!refusedForGood(err)) return err;
  const workflows = workflowRefusal(gh, bundle.result.changes.map((c) => c.path), err);
  if (workflows) return new RefusedError(workflows);
  return new RefusedError(`GitHub refused to write the worker's changes${branch ? ` to ${branch}` : ''} (${statusOf(err)} ${messageOf(err)})`);
}
