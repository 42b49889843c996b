// The App's clock: every `intervalMs` it sweeps the open runs of every installation
// (sweep.ts), so that deadlines pass with no event. Installations and their repositories
// are listed from GitHub each time — a fresh process knows nothing and needs nothing.
// Requests per sweep: 1 (installations) + per installation 1 (its repositories; the
// installation token is cached by Probot's auth) + per repository 1 (its run branches) +
// per unfinished run 1 per running worker attempt (its Actions run); a run loaded for the
// first time by this process (or again after it finished: finished runs are not kept in
// memory) also reads its thread and manifest once. Then per repository 1
// (its claims) + 1 per thread holding claims, and a DELETE per claim or branch that can go.
// Schedules (handlers/schedule.ts): per repository 1 (the default branch's head; its manifests
// are read once per commit), and where a workflow has `on.schedule` 1 (the schedules' claims);
// a tick that is due adds its claim, the previous one's DELETE, the tracking issue's lookup and the start.
import type { GitHubClient, RepoContext } from '../hosts/github/client.ts';
import type { RepositoryPayload } from './context.ts';
import type { Log, RunService } from './runs.ts';
import { FinishedRuns, sweepRepository, type RepoSweep } from './sweep.ts';
import { startScheduledRuns } from './handlers/schedule.ts';

/** Default interval: well inside the minutes-scale deadlines baton has (timeouts, budgets). */
export const DEFAULT_SWEEP_INTERVAL_MS = 2 * 60_000;

/** The interval from the environment: BATON_SWEEP_INTERVAL in seconds, `0` turns the timer off. */
export function sweepIntervalFromEnv(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_SWEEP_INTERVAL_MS;
  const s = Number(value);
  if (!Number.isFinite(s) || s < 0) throw new Error(`BATON_SWEEP_INTERVAL must be a number of seconds (0 turns the sweep off), got ${JSON.stringify(value)}`);
  return s * 1000;
}

export interface SweepReport extends RepoSweep {
  installations: number;
  /** Scheduled runs started (handlers/schedule.ts). */
  scheduled: number;
  repositories: number;
  durationMs: number;
}

interface AppAuth {
  auth(installationId?: number): Promise<unknown>;
}

interface RepositoryListed extends RepositoryPayload {
  archived?: boolean;
}

export class Sweeper {
  private readonly finished = new FinishedRuns();
  private current: Promise<SweepReport> | undefined;
  /** Told of every finished sweep (the metrics). */
  onReport: ((report: SweepReport) => void) | undefined;
  /** Runs each sweep as one event whose own time and GitHub's are measured apart (the metrics). */
  timed: <T>(event: string, work: () => Promise<T>) => Promise<T> = (_event, work) => work();
  /** Work each sweep starts with (app.ts: events GitHub's rate limits deferred). */
  beforeSweep: (() => Promise<void>) | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly app: AppAuth,
    private readonly runs: RunService,
    private readonly contextOf: (octokit: GitHubClient, repository: RepositoryPayload) => Promise<RepoContext>,
    private readonly now: () => number,
    private readonly log: Log,
  ) {}

  /** One sweep of every installation; a sweep already under way is joined, not doubled. */
  sweep(): Promise<SweepReport> {
    this.current ??= this.timed('sweep', () => this.sweepAll()).finally(() => (this.current = undefined));
    return this.current;
  }

  /** Sweeps every `intervalMs` (unref'd: the timer never keeps the process alive). */
  start(intervalMs: number): void {
    this.stop();
    if (!(intervalMs > 0)) return;
    this.timer = setInterval(() => {
      this.sweep().catch((err) => this.log.warn(`sweep failed: ${(err as Error).message}`));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async sweepAll(): Promise<SweepReport> {
    const started = Date.now();
    await this.beforeSweep?.();
    const report: SweepReport = { installations: 0, scheduled: 0, repositories: 0, runs: 0, swept: 0, failed: 0, states: {}, branchesRemoved: 0, claimsPruned: 0, durationMs: 0 };
    const appOctokit = (await this.app.auth()) as GitHubClient;
    const installations = (await appOctokit.paginate('GET /app/installations', { per_page: 100 })) as Array<{ id: number; suspended_at?: string | null }>;
    for (const inst of installations) {
      if (inst.suspended_at) continue; // a suspended installation's tokens are refused
      report.installations++;
      try {
        const octokit = (await this.app.auth(inst.id)) as GitHubClient;
        const repos = (await octokit.paginate('GET /installation/repositories', { per_page: 100 })) as RepositoryListed[];
        for (const repository of repos) {
          if (repository.archived) continue; // read-only: nothing a run could do there
          report.repositories++;
          try {
            const gh = await this.contextOf(octokit, repository);
            // Schedules tick on the sweep's clock: at most one sweep interval late.
            try {
              report.scheduled += (await startScheduledRuns(this.runs, gh, { at: this.now() }, this.log)).started.length;
            } catch (err) {
              report.failed++;
              this.log.warn(`sweep: the schedules of ${repository.owner.login}/${repository.name} failed: ${(err as Error).message}`);
            }
            const r = await sweepRepository(this.runs, gh, this.now, this.log, this.finished);
            report.runs += r.runs;
            report.swept += r.swept;
            report.failed += r.failed;
            report.branchesRemoved += r.branchesRemoved;
            report.claimsPruned += r.claimsPruned;
            for (const [state, n] of Object.entries(r.states)) report.states[state] = (report.states[state] ?? 0) + n;
          } catch (err) {
            report.failed++;
            this.log.warn(`sweep: ${repository.owner.login}/${repository.name} failed: ${(err as Error).message}`);
          }
        }
      } catch (err) {
        report.failed++;
        this.log.warn(`sweep: installation ${inst.id} failed: ${(err as Error).message}`);
      }
    }
    report.durationMs = Date.now() - started;
    this.onReport?.(report);
    if (report.swept) this.log.info(`sweep: ${report.swept} of ${report.runs} runs in ${report.repositories} repositories looked at in ${report.durationMs} ms`);
    return report;
  }
}
