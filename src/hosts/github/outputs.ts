// Large step outputs kept in check runs (docs/architecture.md §4): when the status comment would be too
// long, the largest outputs go to the text of a check run `baton / <workflow> / <step>
// outputs` on the run branch head, and the state keeps references by check run id.
// Loading reads them back with one GET per check run, cached in process.
import type { RunState } from '../../engine/index.ts';
import { internalize, sha256Of, type OutputBlob, type OutputRef } from '../../record/externalize.ts';
import type { RepoContext } from './client.ts';
import { checkTextBytes, MAX_CHECK_TEXT_BYTES } from './limits.ts';
import type { RunMemory } from './memory.ts';

/**
 * What the app has stored or read, per process: a running app pays once per blob. A run's
 * blobs are dropped when it finishes (RunMemories.release): a late event reads them again.
 */
export class OutputStore {
  private readonly texts = new Map<string, string>();
  private readonly ids = new Map<string, string>();
  /** Per run: its blobs' text and id keys, so that a finished run's go with it. */
  private readonly ofRun = new Map<string, Array<{ text: string; id: string }>>();

  text(gh: RepoContext, id: string): string | undefined {
    return this.texts.get(`${gh.owner}/${gh.repo}/${id}`.toLowerCase());
  }
  /** The check run id holding blob `sha256` of run `runId`, if known. */
  idOf(gh: RepoContext, runId: string, sha256: string): string | undefined {
    return this.ids.get(`${gh.owner}/${gh.repo}#${runId}@${sha256}`.toLowerCase());
  }
  remember(gh: RepoContext, runId: string, id: string, sha256: string, text: string): void {
    if (this.texts.size > 5000) this.texts.clear();
    if (this.ids.size > 20000 || this.ofRun.size > 20000) {
      this.ids.clear();
      this.ofRun.clear();
    }
    const keys = { text: `${gh.owner}/${gh.repo}/${id}`.toLowerCase(), id: `${gh.owner}/${gh.repo}#${runId}@${sha256}`.toLowerCase() };
    this.texts.set(keys.text, text);
    this.ids.set(keys.id, id);
    const run = `${gh.owner}/${gh.repo}#${runId}`.toLowerCase();
    this.ofRun.set(run, [...(this.ofRun.get(run) ?? []).filter((k) => k.id !== keys.id), keys]);
  }
  /** Drops what is kept for one run (it finished). */
  forgetRun(owner: string, repo: string, runId: string): void {
    const run = `${owner}/${repo}#${runId}`.toLowerCase();
    for (const keys of this.ofRun.get(run) ?? []) {
      this.texts.delete(keys.text);
      this.ids.delete(keys.id);
    }
    this.ofRun.delete(run);
  }
  /** The texts kept, in UTF-8 bytes (RunMemories.retained). */
  retainedBytes(): number {
    let bytes = 0;
    for (const t of this.texts.values()) bytes += Buffer.byteLength(t);
    return bytes;
  }
}

export class OutputTooLargeError extends Error {}

/** The refusal for one output too large for a check run's text. */
export function tooLargeMessage(step: string, bytes: number): string {
  return `the outputs of step \`${step}\` are ${bytes} bytes as JSON (UTF-8); baton keeps at most ${MAX_CHECK_TEXT_BYTES} bytes per output (the text of a check run): return a shorter result and put large content in files`;
}

export function outputsCheckName(workflow: string, step: string): string {
  return `baton / ${workflow} / ${step} outputs`;
}

/** Stores each blob as the text of its own check run; returns provisional id → check run id. */
export async function storeOutputs(gh: RepoContext, store: OutputStore, memory: RunMemory, state: RunState, blobs: readonly OutputBlob[]): Promise<Map<string, string>> {
  const o = { owner: gh.owner, repo: gh.repo };
  const ids = new Map<string, string>();
  for (const blob of blobs) {
    let id = store.idOf(gh, state.runId, blob.sha256);
    if (id === undefined) {
      const bytes = checkTextBytes(blob.json);
      if (bytes > MAX_CHECK_TEXT_BYTES) throw new OutputTooLargeError(`run ${state.runId}: ${tooLargeMessage(blob.step, bytes)}`);
      const name = outputsCheckName(state.workflow, blob.step);
      const externalId = `${state.runId}/${blob.step}/outputs/${blob.sha256.slice(0, 16)}`;
      if (!memory.checksKnown) {
        // After a restart: an earlier delivery may have stored it before dying.
        const res = await gh.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...o, ref: state.head, check_name: name, per_page: 100 });
        const found = res.data.check_runs.find((c) => c.external_id === externalId && c.output?.text === blob.json);
        if (found) id = String(found.id);
      }
      if (id === undefined) {
        const res = await gh.octokit.request('POST /repos/{owner}/{repo}/check-runs', {
          ...o,
          name,
          head_sha: state.head,
          external_id: externalId,
          status: 'completed',
          conclusion: 'neutral',
          completed_at: new Date().toISOString(),
          output: {
            title: `Outputs of ${blob.step}`,
            summary: `The outputs of step \`${blob.step}\` of run \`${state.runId}\` (${checkTextBytes(blob.json)} bytes of JSON, sha256 \`${blob.sha256}\`), kept here because the status comment has no room for them.`,
            text: blob.json,
          },
        } as never);
        id = String((res.data as { id: number }).id);
      }
      store.remember(gh, state.runId, id, blob.sha256, blob.json);
    }
    ids.set(blob.id, id);
  }
  return ids;
}

/** The JSON text a reference points to: `GET …/check-runs/{id}` once per process. */
export async function resolveOutput(gh: RepoContext, store: OutputStore, runId: string, ref: OutputRef): Promise<string> {
  let text = store.text(gh, ref.id);
  if (text === undefined) {
    if (!/^\d+$/.test(ref.id)) throw new Error(`run ${runId}: output reference \`${ref.id}\` is not a check run id`);
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/check-runs/{check_run_id}', { owner: gh.owner, repo: gh.repo, check_run_id: Number(ref.id) });
    text = res.data.output?.text ?? '';
  }
  if (sha256Of(text) === ref.sha256) store.remember(gh, runId, ref.id, ref.sha256, text);
  return text;
}

/** A state read from a status comment with its outputs put back (checked against their hashes). */
export function loadOutputs(gh: RepoContext, store: OutputStore, state: RunState): Promise<RunState> {
  return internalize(state, (ref) => resolveOutput(gh, store, state.runId, ref));
}
