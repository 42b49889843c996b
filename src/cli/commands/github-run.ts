// `baton status owner/repo#N` and `baton logs owner/repo#N`: a run on GitHub read from the
// terminal through the reader the MCP server uses (GitHubRuns → findRecords), so the CLI
// trusts exactly what the App and the MCP server trust: the bot's status comment.
import type { JobState, RunState } from '../../engine/index.ts';
import { printable } from '../../printable.ts';
import { GitHubRuns, NothingRan, type GitHubTarget } from '../../mcp/github.ts';
import { ToolError } from '../../mcp/target.ts';
import { viewOfState } from '../../record/view.ts';
import { usd } from '../../record/format.ts';
import { EXIT, UsageError, errorLine, type CliIO } from '../io.ts';
import { stepLines } from './step-lines.ts';

export interface ThreadTarget extends GitHubTarget {
  number: number;
}

const TARGET = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)#(\d+)$/;

/** `owner/repo#N`, or undefined for anything else (a local run id). */
export function threadTarget(text: string | undefined): ThreadTarget | undefined {
  const m = text === undefined ? null : TARGET.exec(text);
  if (!m) return undefined;
  const number = Number(m[3]);
  if (!Number.isSafeInteger(number) || number < 1) return undefined;
  return { owner: m[1]!, repo: m[2]!, number };
}

export { printable };

/** Errors a person fixes (no token, no such run, GitHub refused): one line, exit 1. */
function failedWith(io: CliIO, command: string, err: unknown): number {
  if (err instanceof ToolError) {
    io.err(errorLine(command, printable(err.message)));
    return EXIT.failed;
  }
  throw err;
}

function jobsWithRuns(step: RunState['steps'][number]): JobState[] {
  return step.jobs.filter((j) => j.workflowRunId !== null);
}

export async function githubStatus(t: ThreadTarget, opts: { run?: string | undefined; json?: boolean | undefined }, io: CliIO, env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const gh = new GitHubRuns(env);
    let found;
    try {
      found = await gh.record(t, t.number, opts.run);
    } catch (err) {
      if (!(err instanceof NothingRan)) throw err;
      io.out(opts.json ? JSON.stringify({ runId: null, skipped: err.skips }, null, 2) : printable(err.message));
      return EXIT.ok;
    }
    const state = found.state;
    const view = viewOfState(state);
    for (const i of found.ignored) io.err(`baton status: ${printable(i)}`);
    if (opts.json) {
      const workers = state.steps.flatMap((s) => s.jobs.filter((j) => j.workflowRunId !== null).map((j) => ({ step: s.id, slot: j.slot, attempt: j.attempt, workflowRunId: j.workflowRunId, url: j.url })));
      io.out(JSON.stringify({ ...view, url: found.url ?? null, ...(found.unverified ? { unverified: true } : {}), workers, skipped: found.skips }, null, 2));
      return EXIT.ok;
    }
    io.out(printable(`run ${state.runId} (${state.workflow}) on ${t.owner}/${t.repo}#${t.number} — ${state.status}${state.reason ? `: ${state.reason}` : ''}`));
    if (state.runBranch) io.out(`branch ${state.runBranch}${state.head ? ` at ${state.head.slice(0, 12)}` : ''}`);
    io.out(printable(stepLines(view).join('\n')));
    for (const w of view.waiting) {
      io.out(printable(`Step \`${w.step}\` asks (answer in the thread: quote-reply the question, or comment \`/baton answer ${state.runId}\` and the answers, numbered like the questions):`));
      for (const i of w.open) io.out(printable(`  ${i + 1}. ${w.questions[i] ?? ''}`));
    }
    io.out(`cost: ${usd(state.budget.costUsd)}${state.budget.costEstimated ? ' (estimated in part from token counts)' : ''}${state.pr ? ` · PR #${state.pr.number}` : ''}`);
    const workers = state.steps.flatMap((s) => jobsWithRuns(s).map((j) => `  ${s.id}${j.slot === '0' ? '' : `[${j.slot}]`} #${j.attempt}: ${j.url ?? `run ${j.workflowRunId}`}`));
    if (workers.length) io.out(printable(['worker runs (baton logs ' + `${t.owner}/${t.repo}#${t.number} --step ID` + ' shows one):', ...workers].join('\n')));
    // Said on this thread: ticks that did not run, starts the day's budget refused, deadlines that passed.
    if (found.skips.length) io.out(printable(['did not run (said on the thread):', ...found.skips.map((k) => `  ${k.text} (${k.url})`)].join('\n')));
    if (found.url) io.out(`status comment: ${found.url}`);
    if (found.unverified) io.out('(read without BATON_STATE_SECRET: the App\'s signature on this record was not checked)');
    return EXIT.ok;
  } catch (err) {
    return failedWith(io, 'status', err);
  }
}

export async function githubLogs(t: ThreadTarget, opts: { step?: string | undefined; run?: string | undefined }, io: CliIO, env: NodeJS.ProcessEnv): Promise<number> {
  try {
    const gh = new GitHubRuns(env);
    const found = await gh.record(t, t.number, opts.run);
    const state = found.state;
    for (const i of found.ignored) io.err(`baton logs: ${printable(i)}`);
    const withRuns = state.steps.filter((s) => jobsWithRuns(s).length);
    const steps = opts.step === undefined ? withRuns : state.steps.filter((s) => s.id === opts.step);
    if (opts.step !== undefined && !steps.length) {
      throw new UsageError(`run ${state.runId} has no step ${JSON.stringify(opts.step)}; its steps: ${state.steps.map((s) => s.id).join(', ')}`);
    }
    const jobs = steps.flatMap((s) => jobsWithRuns(s).map((j) => ({ step: s.id, job: j })));
    if (!jobs.length) {
      io.err(printable(`baton logs: ${opts.step ? `step ${opts.step}` : `run ${state.runId}`} has no worker run yet${opts.step ? ` (steps with one: ${withRuns.map((s) => s.id).join(', ') || 'none'})` : ''}`));
      return EXIT.failed;
    }
    for (const { step, job } of jobs) {
      const out = await gh.workerOutput(t, job.workflowRunId!);
      const what = out.kind === 'transcript' ? 'agent transcript' : 'job log';
      io.out(printable(`=== ${step}${job.slot === '0' ? '' : `[${job.slot}]`} attempt ${job.attempt} · ${what} · ${job.url ?? `worker run ${job.workflowRunId}`} ===`));
      if (out.note) io.out(printable(`(${out.note}; showing the job log instead)`));
      io.out(printable(out.text.trim() ? out.text : '(empty)'));
    }
    return EXIT.ok;
  } catch (err) {
    return failedWith(io, 'logs', err);
  }
}
