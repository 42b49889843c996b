// The MCP tools against a local repository: runs are driven inside the server process
// (in the background, never blocking a tool call), with no terminal: a run that needs
// an answer stops and waits for `baton_answer`. Nothing is ever written to stdout here,
// which carries the MCP protocol.
import { localActor } from '../hosts/local/actor.ts';
import { findWorkflowFiles, validateFiles } from '../manifest/validate.ts';
import { repoRoot } from '../hosts/local/git.ts';
import { LocalRun, type RunOptions } from '../hosts/local/run.ts';
import { answerEvent, approveEvent, cancelEvent, cancelStoredRun, openStore, readRun, retryEvent, startLocalRun, summarize } from '../hosts/local/session.ts';
import type { LimitRaise } from '../engine/types.ts';
import { listRunIds, RunStore } from '../hosts/local/store.ts';
import { findWorkflow, listWorkflows, loadWorkflow, REPO_WORKFLOWS } from '../hosts/local/workflows.ts';
import type { Json, RunEvent } from '../engine/index.ts';
import { ToolError } from './target.ts';
import type { RunView } from './summary.ts';
import { fencedView } from './fenced-view.ts';

export class LocalRuns {
  /** Runs this server is driving right now, by `<repo>\0<run>`. */
  private readonly active = new Map<string, { run: LocalRun; done: Promise<void> }>();

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: (line: string) => void,
  ) {}

  private options(): RunOptions {
    return {
      env: this.env,
      interaction: { interactive: false, ask: async () => null },
      saved: () => {},
      say: (t) => this.log(t),
    };
  }

  listWorkflows(path: string): { name: string; description: string | null; source: string; file: string; inputs: Record<string, unknown> }[] {
    const repo = repoRoot(path);
    return listWorkflows(repo).map((w) => {
      try {
        const wf = loadWorkflow(w.file).workflow;
        return { name: w.name, description: wf.description ?? null, source: w.source, file: w.file, inputs: wf.inputs as Record<string, unknown> };
      } catch (err) {
        return { name: w.name, description: `invalid: ${(err as Error).message.split('\n')[0]}`, source: w.source, file: w.file, inputs: {} };
      }
    });
  }

  validate(path: string, workflow?: string): { valid: boolean; files: { file: string; valid: boolean; errors: string[] }[] } {
    const repo = repoRoot(path);
    const files = workflow ? [findWorkflow(repo, workflow, repo)] : findWorkflowFiles([REPO_WORKFLOWS], repo).files;
    if (!files.length) throw new ToolError(`no workflow files in ${REPO_WORKFLOWS}/ of ${repo}; name a workflow (e.g. \`local-demo\`) to check one from the library`);
    const report = validateFiles(files, { cwd: repo });
    return {
      valid: report.valid,
      files: report.files.map((f) => ({
        file: f.file,
        valid: f.valid,
        errors: f.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.line}:${d.column}: ${d.message}`),
      })),
    };
  }

  /** `inputs.pr` (a branch) binds the run to it as a pull request, `base` its base (session.ts startLocalRun). */
  async start(path: string, workflow: string, inputs: Record<string, Json>, base?: string): Promise<RunView> {
    const run = await startLocalRun(path, workflow, inputs, this.options(), path, { base });
    if (run.state.status === 'idle') throw new ToolError(`the run was refused; check the inputs of \`${workflow}\``);
    this.drive(run);
    return this.view(run.store);
  }

  get(path: string, runId?: string): RunView {
    const repo = repoRoot(path);
    const id = runId ?? listRunIds(repo).at(-1);
    if (!id) throw new ToolError(`no local runs in ${repo} yet; start one with baton_start_run`);
    return this.view(openStore(repo, id));
  }

  list(path: string): RunView[] {
    const repo = repoRoot(path);
    return listRunIds(repo).flatMap((id) => {
      try {
        return [this.view(RunStore.open(repo, id))];
      } catch {
        return [];
      }
    });
  }

  async answer(path: string, runId: string, answers: string[]): Promise<RunView> {
    return this.continueWith(path, runId, (run) => answerEvent(run.state, run.workflow, answers, localActor()));
  }

  async approve(path: string, runId: string): Promise<RunView> {
    return this.continueWith(path, runId, (run) => approveEvent(run.state, run.workflow, localActor()));
  }

  /** A retry of `step` (default: the one a limit stopped) with its limits raised, from its kept work. */
  async resume(path: string, runId: string, step: string | undefined, raise: LimitRaise): Promise<RunView> {
    return this.continueWith(path, runId, (run) => retryEvent(run.state, run.workflow, step, raise, localActor()));
  }

  async cancel(path: string, runId: string): Promise<RunView> {
    const store = openStore(path, runId);
    const mine = this.active.get(`${store.repo}\0${runId}`);
    if (mine) {
      mine.run.interrupt(cancelEvent(mine.run.state, localActor()));
      await mine.done;
      return this.view(store);
    }
    await cancelStoredRun(store, this.options(), localActor());
    return this.view(store);
  }

  view(store: RunStore): RunView {
    const { state, workflow } = readRun(store);
    return fencedView(summarize(store, state, workflow));
  }

  /** Waits for the runs this server drives (tests, shutdown). */
  async idle(): Promise<void> {
    await Promise.all([...this.active.values()].map((a) => a.done));
  }

  private async continueWith(path: string, runId: string, event: (run: LocalRun) => RunEvent): Promise<RunView> {
    const store = openStore(path, runId);
    if (this.active.has(`${store.repo}\0${runId}`)) throw new ToolError(`run ${runId} is running and waits for nothing yet; call baton_wait first`);
    const holder = store.lock();
    if (holder !== null) throw new ToolError(`run ${runId} is being driven by process ${holder}; wait for it to stop (baton_wait) or cancel it`);
    try {
      const run = await LocalRun.resume(store, this.options(), false);
      const ev = event(run);
      await run.redo();
      await run.feed([ev]);
      this.drive(run);
      return this.view(store);
    } catch (err) {
      store.unlock();
      throw err;
    }
  }

  private drive(run: LocalRun): void {
    const key = `${run.store.repo}\0${run.store.runId}`;
    const done = run
      .loop()
      // A finished run that did not succeed says how it ended (cancelled, stopped by its
      // budget, failed), as `baton run` does: the outcome 'failed' covers all three.
      .then((outcome) => this.log(`run ${run.store.runId}: ${outcome === 'failed' ? run.state.status : outcome}`))
      .catch((err: unknown) => this.log(`run ${run.store.runId} stopped on an error: ${(err as Error).stack ?? String(err)}`))
      .finally(() => {
        this.active.delete(key);
        run.store.unlock();
      });
    this.active.set(key, { run, done });
  }
}
