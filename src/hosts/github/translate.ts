// Pure translations from webhook payload fields to engine event fields. Handlers unpack
// the payload and look things up; these decide what it means (Prow's split).
import type { CheckResult, ReviewComment } from '../../engine/index.ts';

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
