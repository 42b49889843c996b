// The concurrency key of an event in Actions-only mode: the issue or PR number the run's
// record lives on (the number inside every run id `<workflow>-<n>-<k>`). Every event of one
// run maps to the same key, so the `concurrency` group of the job that handles it makes
// it the run's only writer (docs/architecture.md §2). Computed from the payload alone — no token, no
// request — because GitHub evaluates job concurrency before the job starts.
import { createHash } from 'node:crypto';
import { isSweepSchedule } from '../app/sweep-cron.ts';
import { cronText } from '../engine/cron.ts';
import { parseRunId, runIdOfBranch, runIdOfPullBody } from '../hosts/github/run-id.ts';
import { PULL_REQUEST_TYPES } from '../manifest/types.ts';

type Payload = Record<string, unknown>;

/** A short, fixed-alphabet name for a text from the payload (a cron, a workflow's name): safe in a concurrency group. */
const shortHash = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 12);

const threadOfRun = (runId: string | undefined): string | undefined => (runId ? String(parseRunId(runId)?.thread ?? '') || undefined : undefined);

/** The pull_request types that start runs (on.pull_request.types), as opposed to baton's own (labeled, closed). */
const STARTS: ReadonlySet<string> = new Set(PULL_REQUEST_TYPES);

/** Whether the payload's pull request comes from another repository than the event's (a fork; a deleted fork too). */
export function fromFork(p: Payload): boolean {
  const pull = p.pull_request as { head?: { repo?: { full_name?: string } | null } } | undefined;
  const base = (p.repository as { full_name?: string } | undefined)?.full_name;
  if (!pull || base === undefined) return false;
  const head = pull.head?.repo?.full_name;
  return head === undefined || head.toLowerCase() !== base.toLowerCase();
}

/** The key, or undefined when the event cannot concern any baton run (the handling job is skipped). */
export function concurrencyKey(event: string, p: Payload): string | undefined {
  const issue = p.issue as { number?: number; body?: string | null; pull_request?: unknown } | undefined;
  const pull = p.pull_request as { number?: number; head?: { ref?: string } } | undefined;
  switch (event) {
    case 'issues':
      return issue?.number !== undefined ? String(issue.number) : undefined;
    case 'pull_request':
      // A fork's pull request starting a run arrives as pull_request_target too (below), whose
      // job has the token and secrets this one lacks: only that one handles it (no double start).
      if (fromFork(p) && STARTS.has(String(p.action))) return undefined;
      return threadOfRun(runIdOfBranch(pull?.head?.ref)) ?? (pull?.number !== undefined ? String(pull.number) : undefined);
    case 'pull_request_target':
      // baton.yml subscribes to it for forks' pull requests only (forks: review); a pull request
      // of this repository is the pull_request event's.
      return fromFork(p) && pull?.number !== undefined ? String(pull.number) : undefined;
    case 'issue_comment':
      // On baton's PR the run lives in the issue that started it (named in the PR body).
      if (issue?.pull_request) return threadOfRun(runIdOfPullBody(issue.body)) ?? String(issue.number);
      return issue?.number !== undefined ? String(issue.number) : undefined;
    case 'pull_request_review':
      return threadOfRun(runIdOfBranch(pull?.head?.ref));
    case 'check_suite':
    case 'check_run': {
      const suite = (event === 'check_run' ? (p.check_run as Payload | undefined)?.check_suite : p.check_suite) as { head_branch?: string | null } | undefined;
      return threadOfRun(runIdOfBranch(suite?.head_branch));
    }
    case 'status': {
      // The branches *containing* the commit (at most 10): the run is the one whose head it is.
      const branches = ((p.branches as { name?: string; commit?: { sha?: string } }[] | undefined) ?? []).filter((b) => b.commit?.sha === undefined || b.commit.sha === p.sha);
      for (const b of branches) {
        const key = threadOfRun(runIdOfBranch(b.name));
        if (key) return key;
      }
      return undefined;
    }
    case 'workflow_run': {
      const run = p.workflow_run as { head_branch?: string | null; name?: string | null } | undefined;
      const ofRun = threadOfRun(runIdOfBranch(run?.head_branch));
      if (ofRun) return ofRun;
      // A watched workflow (a manifest's on.workflow_run) on another branch: one group per
      // workflow name, so two red runs of one workflow are handled one after the other and
      // the second finds the doctor run the first opened (one open run per workflow).
      return typeof run?.name === 'string' && run.name ? `doctor-${shortHash(run.name)}` : undefined;
    }
    case 'schedule':
      // The sweep visits every open run: one group of its own, so that a late sweep waits for
      // the one before instead of running beside it. Any other cron is a manifest's
      // on.schedule: a group per cron, so that it never waits behind the sweep nor holds it up.
      return isSweepSchedule(p) ? 'sweep' : `schedule-${shortHash(cronText(String(p.schedule)))}`;
    case 'workflow_dispatch':
      // The worker workflow: its `run` input is the run id.
      return threadOfRun((p.inputs as { run?: string } | undefined)?.run);
    default:
      return undefined;
  }
}
