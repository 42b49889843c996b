// The status comment of a run (docs/architecture.md §4): what a person reads on the issue, and the
// hidden state the next event continues from. Rendering is a pure function of the state,
// so re-rendering after a redelivered event produces the same body (and no edit).
import { toMermaid } from '../manifest/graph.ts';
import { stepById, type Workflow } from '../manifest/types.ts';
import { keptNote, stepState, type RunState, type StepState } from '../engine/index.ts';
import { externalize, isOutputRef, type Externalized } from './externalize.ts';
import { breakerLines } from './breakers.ts';
import { cell, duration, usd } from './format.ts';
import { stepCost } from './cost.ts';
import { inert } from './inert.ts';
import { quietMentions } from '../engine/mentions.ts';
import { writeStateBlock } from './state-block.ts';

/** GitHub refuses comment bodies longer than this. */
export const MAX_COMMENT_CHARS = 65_536;

export const RECORD_MARKER = '<!-- baton:record -->';

export interface RenderOptions {
  /** Check-run links by step id, when the host knows them. */
  checkUrls?: Record<string, string>;
  /** Link to the question comment by step id. */
  questionUrls?: Record<string, string>;
  /** Secret for the state block's HMAC. */
  secret?: string;
  /** The lease generation that writes this record (hosts/github/lease.ts); 0 or absent: none. */
  gen?: number;
}

export class RecordTooLargeError extends Error {}

const RUN_ICON: Record<RunState['status'], string> = {
  idle: '⏳',
  running: '🏃',
  succeeded: '✅',
  failed: '❌',
  cancelled: '🚫',
  stopped: '⏹️',
};

const STEP_ICON: Record<StepState['status'], string> = {
  waiting: '⏸️',
  running: '🔄',
  succeeded: '✅',
  failed: '❌',
  skipped: '⏭️',
  cancelled: '🚫',
};

export function renderRecord(state: RunState, workflow: Workflow, opts: RenderOptions = {}): string {
  const full = compose(state, workflow, opts, 'full');
  if (full.length <= MAX_COMMENT_CHARS) return full;
  // Very large runs: drop what can be found elsewhere (links, the diagram) before anything else.
  const brief = compose(state, workflow, opts, 'brief');
  if (brief.length <= MAX_COMMENT_CHARS) return brief;
  throw new RecordTooLargeError(
    `the status comment of run ${state.runId} would be ${brief.length} characters, over GitHub's ${MAX_COMMENT_CHARS}; large outputs must be moved out of the state`,
  );
}

/** Length of the body renderRecord would write (Infinity when it would refuse). */
export function recordLength(state: RunState, workflow: Workflow, opts: RenderOptions = {}): number {
  const full = compose(state, workflow, opts, 'full');
  if (full.length <= MAX_COMMENT_CHARS) return full.length;
  const brief = compose(state, workflow, opts, 'brief');
  return brief.length <= MAX_COMMENT_CHARS ? brief.length : Infinity;
}

/**
 * The state to render, with the fewest, largest outputs moved out when the record would
 * not fit otherwise, and the blobs the host must store before writing it.
 */
export function fitRecord(state: RunState, workflow: Workflow, opts: RenderOptions = {}, id?: (blob: { sha256: string; step: string }) => string): Externalized {
  return externalize(state, { limit: MAX_COMMENT_CHARS, measure: (s) => recordLength(s, workflow, opts), ...(id ? { id } : {}) });
}

/**
 * The record's layout is fixed: its marker the first line, its state block the last, and in
 * between only inert text (questions, failure reasons and step notes quote people and agents),
 * so nothing rendered can be taken for either. The diagram is made of the manifest's step ids.
 */
function compose(state: RunState, workflow: Workflow, opts: RenderOptions, mode: 'full' | 'brief'): string {
  const head = [title(state, workflow), '', table(state, workflow, opts, mode)];
  const tail: string[] = [];
  const questions = openQuestions(state, workflow);
  if (questions) tail.push('', questions);
  if (state.reason && state.status !== 'running') tail.push('', `**${state.status === 'failed' ? 'Failed' : state.status === 'cancelled' ? 'Cancelled' : 'Stopped'}:** ${quietMentions(state.reason)}`);
  const breakers = breakerLines(state, workflow);
  if (breakers.length) tail.push('', '**Agents whose backend failed before any work:**', ...breakers);
  // A step a limit stopped: what it kept and the command that resumes it, whole (the table cuts its reason).
  const kept = keptLines(state, workflow);
  if (kept.length) tail.push('', ...kept);
  const sandbox = sandboxLines(state, workflow);
  if (sandbox.length) tail.push('', ...sandbox);
  tail.push('', budgetLine(state, workflow));
  tail.push(state.status === 'running' ? '`/baton status` · `/baton cancel` · `/baton retry <step>`' : '`/baton retry <step>` · `/baton help`');
  const diagramLines = mode === 'full' ? ['', '```mermaid', diagram(state, workflow), '```'] : [];
  return [RECORD_MARKER, inert(head.join('\n')), ...diagramLines, inert(tail.join('\n')), writeStateBlock(state, opts.secret, opts.gen)].join('\n');
}

function title(state: RunState, workflow: Workflow): string {
  const total = workflow.steps.length;
  const done = workflow.steps.filter((s) => ['succeeded', 'skipped'].includes(stepState(state, s.id)?.status ?? '')).length;
  const words: Record<RunState['status'], string> = {
    idle: 'starting',
    running: `running (${done} of ${total} steps done)`,
    succeeded: `succeeded (${done} of ${total} steps done)`,
    failed: 'failed',
    cancelled: 'cancelled',
    stopped: 'stopped',
  };
  return `### ${RUN_ICON[state.status]} baton · ${state.workflow} · run \`${state.runId}\` — ${words[state.status]}`;
}

function table(state: RunState, workflow: Workflow, opts: RenderOptions, mode: 'full' | 'brief'): string {
  const rows = ['| | step | status | attempt | time | cost | links |', '|---|---|---|---|---|---|---|'];
  for (const step of workflow.steps) {
    const s = stepState(state, step.id);
    if (!s) continue;
    const attempt = Math.max(0, ...s.jobs.map((j) => j.attempt));
    // An attempt its agent's fallback runs says so (breakers.ts tells why, below the table).
    const standIn = s.jobs.find((j) => j.attempt === attempt && j.fallback)?.fallback;
    const end = s.finishedAt ?? (s.status === 'running' ? state.clock : null);
    const time = s.startedAt !== null && end !== null ? duration(end - s.startedAt) : '';
    const links = mode === 'full' ? linksOf(step.id, s, opts) : '';
    const icon = s.status === 'running' && s.ask ? '❓' : STEP_ICON[s.status];
    rows.push(`| ${icon} | ${cell(step.name)} | ${cell(statusText(state, workflow, step.id, s), mode === 'full' ? 160 : 60)} | ${attempt || ''}${standIn ? ` (${cell(standIn, 40)}, fallback)` : ''} | ${time} | ${stepCost(s)} | ${links} |`);
  }
  return rows.join('\n');
}

function statusText(state: RunState, workflow: Workflow, id: string, s: StepState): string {
  const step = stepById(workflow, id)!;
  switch (s.status) {
    case 'waiting': {
      const pending = step.needs.filter((n) => !['succeeded', 'skipped'].includes(stepState(state, n)?.status ?? ''));
      return pending.length ? `waiting for ${pending.join(', ')}` : 'waiting';
    }
    case 'running': {
      if (s.ask) {
        const answered = s.ask.answers.filter((a) => a !== null).length;
        return `waiting for answers (${answered} of ${s.ask.questions.length})`;
      }
      if (s.gate) {
        const rounds = step.kind === 'review' || step.kind === 'checks' ? ` of ${step.maxRounds}` : '';
        if (s.gate.phase === 'fixing') return `fix round ${s.gate.round}${rounds}`;
        // A checks gate's note says what holds it (checks waiting for approval).
        if (s.gate.phase === 'posting') return s.note !== null ? quietMentions(s.note) : 'posting the review';
        if (s.gate.phase === 'waiting-checks') return s.note !== null ? quietMentions(s.note) : (s.gate.round ? `waiting for checks (after fix round ${s.gate.round})` : 'waiting for checks');
        return s.gate.round ? `reviewing (after fix round ${s.gate.round})` : 'reviewing';
      }
      if (s.note) return quietMentions(s.note);
      if (s.fanOut) {
        const done = s.jobs.filter((j) => j.status === 'succeeded').length;
        const running = s.jobs.filter((j) => j.status === 'running').length;
        return `${done} of ${s.jobs.length} done, ${running} running`;
      }
      return 'running';
    }
    case 'succeeded': {
      if (s.ask && s.ask.answeredBy.length) return `answered by ${[...new Set(s.ask.answeredBy)].map((u) => '@' + u).join(', ')}`;
      if (step.kind === 'pull-request' && state.pr) return s.note ? `${prName(state.pr)} (${quietMentions(s.note)})` : prName(state.pr);
      if (s.fanOut) return `${s.jobs.length} item${s.jobs.length === 1 ? '' : 's'} done`;
      if (s.gate && s.gate.round) return `passed after ${s.gate.round} fix round${s.gate.round === 1 ? '' : 's'}`;
      const approvedBy = (s.outputs as { approvedBy?: unknown } | null)?.approvedBy;
      if (step.kind === 'approve' && typeof approvedBy === 'string') return `approved by @${approvedBy}`;
      if (s.note !== null) return quietMentions(s.note);
      return isOutputRef(s.outputs) ? 'done (output kept in the check run)' : 'done';
    }
    default:
      return s.reason ? `${s.status}: ${quietMentions(s.reason)}` : s.status;
  }
}

/** One line per job of a finished step whose last attempt a limit stopped with its work kept (engine/kept.ts); file names in code spans. */
function keptLines(state: RunState, workflow: Workflow): string[] {
  const lines: string[] = [];
  for (const step of workflow.steps) {
    const st = stepState(state, step.id);
    if (!st || st.status === 'running' || st.status === 'waiting' || st.status === 'succeeded') continue;
    for (const j of st.jobs) {
      const note = keptNote(state.runId, step.id, j);
      if (note) lines.push(`- ${cell(step.name, 60)}${st.fanOut ? ` [${cell(j.slot, 20)}]` : ''}: ${cell(quietMentions(note), 600)}`);
    }
  }
  return lines.length > MAX_SANDBOX_LINES ? [...lines.slice(0, MAX_SANDBOX_LINES), `- … and ${lines.length - MAX_SANDBOX_LINES} more`] : lines;
}

/** Sandbox lines shown at most; a run with more says how many it left out. */
const MAX_SANDBOX_LINES = 10;

/**
 * What the sandbox did for each step's latest attempts (sandbox-summary.ts), one line per
 * step — per job when a fan-out's jobs differ. The lines quote the worker's report: `cell`
 * keeps each on one line, and the tail goes through `inert`.
 */
function sandboxLines(state: RunState, workflow: Workflow): string[] {
  const lines: string[] = [];
  for (const step of workflow.steps) {
    const jobs = (stepState(state, step.id)?.jobs ?? []).filter((j) => j.sandbox);
    const distinct = [...new Set(jobs.map((j) => j.sandbox!))];
    if (distinct.length === 1) lines.push(`- ${cell(step.name, 60)}: ${cell(quietMentions(distinct[0]!), 320)}`);
    else for (const j of jobs) lines.push(`- ${cell(step.name, 60)} [${cell(j.slot, 20)}]: ${cell(quietMentions(j.sandbox!), 320)}`);
  }
  return lines.length > MAX_SANDBOX_LINES ? [...lines.slice(0, MAX_SANDBOX_LINES), `- … and ${lines.length - MAX_SANDBOX_LINES} more`] : lines;
}

function linksOf(id: string, s: StepState, opts: RenderOptions): string {
  const links: string[] = [];
  const withUrl = s.jobs.filter((j) => j.url);
  if (withUrl.length === 1) links.push(`[job](${withUrl[0]!.url})`);
  else if (withUrl.length > 1) links.push('jobs ' + withUrl.slice(0, 5).map((j, i) => `[${j.index ?? i + 1}](${j.url})`).join(' ') + (withUrl.length > 5 ? ' …' : ''));
  if (opts.checkUrls?.[id]) links.push(`[check](${opts.checkUrls[id]})`);
  if (opts.questionUrls?.[id]) links.push(`[question](${opts.questionUrls[id]})`);
  return links.join(' · ');
}

function diagram(state: RunState, workflow: Workflow): string {
  const classes: Record<string, string[]> = { done: [], running: [], failed: [], waiting: [], skipped: [] };
  for (const step of workflow.steps) {
    const s = stepState(state, step.id);
    if (!s) continue;
    if (s.status === 'succeeded') classes.done!.push(step.id);
    else if (s.status === 'running') (s.ask ? classes.waiting! : classes.running!).push(step.id);
    else if (s.status === 'failed' || s.status === 'cancelled') classes.failed!.push(step.id);
    else if (s.status === 'skipped') classes.skipped!.push(step.id);
  }
  return toMermaid(workflow, classes);
}

function openQuestions(state: RunState, workflow: Workflow): string | undefined {
  const lines: string[] = [];
  for (const step of workflow.steps) {
    const s = stepState(state, step.id);
    const ask = s?.ask;
    if (!ask || s.status !== 'running') continue;
    ask.questions.forEach((q, i) => {
      if (ask.answers[i] === null) lines.push(`${lines.length + 1}. ${cell(quietMentions(q), 500)}`);
    });
  }
  if (!lines.length) return undefined;
  return ['**Open questions** — answer by replying in this thread (or on the run\'s pull request):', ...lines].join('\n');
}

function budgetLine(state: RunState, workflow: Workflow): string {
  const b = workflow.budget;
  const elapsed = state.startedAt !== null ? (state.finishedAt ?? state.clock) - state.startedAt : 0;
  const parts = [
    b.maxSteps ? `${state.budget.steps} of ${b.maxSteps} steps` : `${state.budget.steps} steps`,
    b.maxMinutes ? `${duration(elapsed) || '0s'} of ${duration(b.maxMinutes * 60_000)}` : duration(elapsed) || '0s',
    // codex reports tokens, not dollars: its share is estimated from a price table.
    (b.maxCostUsd ? `${usd(state.budget.costUsd)} of ${usd(b.maxCostUsd)}` : usd(state.budget.costUsd)) + (state.budget.costEstimated ? ' (estimated in part from token counts)' : ''),
    // A fork run's code is the fork's commit, on no branch of this repository (engine/start.ts).
    state.fork ? `the fork's commit \`${state.head.slice(0, 7)}\`` : `branch \`${state.runBranch}\``,
  ];
  // A local run's PR is its branch (number 0): named once above already.
  if (state.pr && state.pr.number > 0) parts.push(`PR ${prName(state.pr)}`);
  return `Budget: ${parts.join(' · ')}`;
}

/** `#12` on GitHub; a local run has no PR number (0), and its "PR" is the run branch. */
function prName(pr: { number: number; url: string }): string {
  return pr.number > 0 ? `#${pr.number}` : pr.url;
}
