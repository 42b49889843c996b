// Pure translations from webhook payload fields to engine event fields. Handlers unpack
// the payload and look things up; these decide what it means (Prow's split).
import type { CheckResult, ReviewComment, RunState } from '../../engine/index.ts';

/**
 * Answers by position. "1. …" / "2) …" lines answer those questions (a numbered answer
 * may run over several lines); an unnumbered reply answers the first open question.
 * Quoted lines (`> …`) are what people reply to, not their answer.
 */
export function parseAnswers(body: string, total: number, open: boolean[]): (string | null)[] {
  const lines = body.split(/\r?\n/).filter((l) => !/^\s*>/.test(l));
  const answers: (string | null)[] = Array.from({ length: total }, () => null);
  let current = -1;
  let numbered = false;
  for (const line of lines) {
    const m = /^\s*(\d+)[.)]\s+(.*)$/.exec(line);
    if (m && Number(m[1]) >= 1 && Number(m[1]) <= total) {
      current = Number(m[1]) - 1;
      numbered = true;
      answers[current] = m[2]!.trim();
    } else if (current >= 0 && line.trim()) {
      answers[current] = `${answers[current]}\n${line.trim()}`;
    }
  }
  if (numbered) return answers;
  const text = lines.join('\n').trim();
  const first = open.findIndex((o) => o);
  if (text && first >= 0) answers[first] = text;
  return answers;
}

/** The ask step of a run that waits for answers, with which questions are still open. */
export function openAsk(state: RunState): { step: string; total: number; open: boolean[] } | undefined {
  if (state.status !== 'running') return undefined;
  for (const s of state.steps) {
    if (s.status === 'running' && s.ask) return { step: s.id, total: s.ask.questions.length, open: s.ask.answers.map((a) => a === null) };
  }
  return undefined;
}

/** A commit status as a check result: pending is not a conclusion yet. */
/** `at`: when GitHub recorded the result (a status's `created_at`, a check run's `completed_at` or `started_at`). */
export function statusResult(context: string, state: string, description: string | null, url: string | null, at?: string | null): CheckResult {
  const conclusion = state === 'pending' ? null : state === 'success' ? 'success' : 'failure';
  return { name: context, conclusion, ...(description ? { summary: description } : {}), ...(url ? { url } : {}), ...(at ? { at } : {}) };
}

export function checkRunResult(name: string, status: string, conclusion: string | null, summary: string | null | undefined, url: string | null | undefined, at?: string | null): CheckResult {
  return { name, conclusion: status === 'completed' ? conclusion ?? 'neutral' : null, ...(summary ? { summary } : {}), ...(url ? { url } : {}), ...(at ? { at } : {}) };
}

export function reviewState(state: string): 'approved' | 'changes_requested' | 'commented' | undefined {
  const s = state.toLowerCase();
  return s === 'approved' || s === 'changes_requested' || s === 'commented' ? s : undefined;
}

export function reviewComments(raw: { path?: string; line?: number | null; original_line?: number | null; body?: string }[]): ReviewComment[] {
  return raw.map((c) => ({ ...(c.path ? { path: c.path } : {}), ...(c.line ?? c.original_line ? { line: (c.line ?? c.original_line)! } : {}), body: c.body ?? '' }));
}
