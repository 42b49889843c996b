// Event-triggered workflow runs for the emulator's Actions runner, which on its own starts
// runs only for workflow_dispatch. Each webhook the emulator emits starts the default
// branch's workflows whose `on:` lists that event (and activity type), with the event's
// payload at GITHUB_EVENT_PATH — except events caused by a job's GITHUB_TOKEN
// (sender github-actions[bot]), which start no workflow on GitHub either (DESIGN §4's
// gotcha, reproduced on purpose).
//
// The runner has no public entry point for this, so the run is set up the way its
// `dispatch` does and handed to its private `start`. Wanted instead: a public
// `runner.trigger(owner, repo, event, payload)` in tests/emulator/actions/runner.ts.
import { parse } from 'yaml';
import type { Emulator } from '../emulator/emulator.ts';
import type { ActionsRunner } from '../emulator/actions/index.ts';
import { commitInfo, defaultBranch, listWorkflowPaths, readFileAt, resolveRef } from '../emulator/actions/git.ts';
import type { RunRecord } from '../emulator/actions/records.ts';
import { parseWorkflowFile, type WorkflowFile } from '../emulator/actions/workflow-file.ts';

/** Events the runner itself starts, or that never start workflows. */
const NOT_TRIGGERS = new Set(['workflow_dispatch', 'workflow_job', 'installation', 'installation_repositories', 'ping']);
export const TOKEN_LOGIN = 'github-actions[bot]';

interface Internals {
  sources: Map<number, { workflow: WorkflowFile; contexts: Record<string, unknown>; eventPayload: Record<string, unknown>; headCommit: Record<string, unknown> }>;
  start(run: RunRecord): Promise<void>;
}

export interface Triggers {
  /** Runs started by events, with the event that started each. */
  started: Array<{ event: string; action?: string; runId: number; path: string }>;
  /** Events skipped because a GITHUB_TOKEN caused them. */
  skipped: Array<{ event: string; action?: string }>;
  /** Resolves when every trigger seen so far has started its runs. */
  idle(): Promise<void>;
  errors: string[];
}

function typesOf(on: unknown, event: string): string[] | null | undefined {
  if (typeof on === 'string') return on === event ? null : undefined;
  if (Array.isArray(on)) return on.includes(event) ? null : undefined;
  if (!on || typeof on !== 'object' || !(event in on)) return undefined;
  const spec = (on as Record<string, unknown>)[event] as { types?: unknown } | null;
  return spec && Array.isArray(spec.types) ? spec.types.map(String) : null;
}

export function installTriggers(emu: Emulator, runner: ActionsRunner): Triggers {
  const t: Triggers = { started: [], skipped: [], errors: [], idle: async () => void (await pending) };
  let pending: Promise<void> = Promise.resolve();
  emu.webhooks.onEmit((d) => {
    if (NOT_TRIGGERS.has(d.event)) return;
    if (d.event === 'workflow_run' && d.action !== 'completed') return;
    if ((d.payload.sender as { login?: string } | undefined)?.login === TOKEN_LOGIN) {
      t.skipped.push({ event: d.event, ...(d.action ? { action: d.action } : {}) });
      return;
    }
    const full = String((d.payload.repository as { full_name?: string } | undefined)?.full_name ?? '');
    const [owner, repo] = full.split('/');
    if (!owner || !repo) return;
    pending = pending.then(() => startRuns(emu, runner, owner, repo, d.event, d.action, d.payload, t)).catch((err: unknown) => void t.errors.push(`${d.event}: ${(err as Error).stack}`));
  });
  return t;
}

async function startRuns(emu: Emulator, runner: ActionsRunner, owner: string, repo: string, event: string, action: string | undefined, payload: Record<string, unknown>, t: Triggers): Promise<void> {
  const gitDir = emu.gitDir(owner, repo);
  const branch = await defaultBranch(gitDir);
  const head = (await resolveRef(gitDir, branch))!;
  for (const path of await listWorkflowPaths(gitDir, head.sha)) {
    const text = (await readFileAt(gitDir, head.sha, path)) ?? '';
    const types = typesOf((parse(text) as { on?: unknown } | null)?.on, event);
    if (types === undefined || (types !== null && action !== undefined && !types.includes(action))) continue;
    const workflow = parseWorkflowFile(path, text);
    const wf = runner.store.workflow(owner, repo, path, workflow.name);
    const commit = await commitInfo(gitDir, head.sha);
    const now = new Date().toISOString();
    const actor = payload.sender as Record<string, unknown>;
    const run: RunRecord = {
      id: runner.store.id(),
      owner,
      repo,
      workflowId: wf.id,
      path,
      workflowName: workflow.name,
      displayTitle: workflow.name,
      runNumber: runner.store.nextRunNumber(wf.id),
      runAttempt: 1,
      event,
      status: 'queued',
      conclusion: null,
      headSha: head.sha,
      headBranch: branch,
      ref: `refs/heads/${branch}`,
      inputs: {},
      actor,
      createdAt: now,
      updatedAt: now,
      runStartedAt: now,
      checkSuiteId: runner.store.id(),
      jobs: [],
      cancelRequested: false,
    };
    const github = {
      action: '',
      actor: String(actor.login ?? ''),
      api_url: runner.host.apiUrl,
      event,
      event_name: event,
      event_path: '',
      ref: run.ref,
      ref_name: branch,
      repository: `${owner}/${repo}`,
      repository_owner: owner,
      run_id: String(run.id),
      run_number: String(run.runNumber),
      run_attempt: '1',
      server_url: runner.host.serverUrl,
      sha: head.sha,
      workflow: workflow.name,
    };
    // The `github` context with the full payload as `github.event`.
    const contexts = JSON.parse(JSON.stringify({ github: { ...github, event: payload }, inputs: {}, vars: {} })) as Record<string, unknown>;
    const internals = runner as unknown as Internals;
    runner.store.runs.set(run.id, run);
    internals.sources.set(run.id, { workflow, contexts, eventPayload: payload, headCommit: { id: commit.sha, tree_id: commit.tree, message: commit.message, timestamp: commit.timestamp, author: commit.author, committer: commit.committer } });
    await internals.start(run);
    t.started.push({ event, ...(action ? { action } : {}), runId: run.id, path });
  }
}
