// What a step stopped by a limit kept, as the record says it: the limit, the files and the
// commit its work is on, and the one command that continues from there with more.
import { codeSpan } from './code-span.ts';
import { stepBranch } from './naming.ts';
import { RAISE_FLAG } from './raise.ts';
import type { JobState, StopLimit } from './types.ts';

/** File names the record lists of a kept checkpoint; the rest are counted. */
export const KEPT_FILES_SHOWN = 5;

const LIMIT_TEXT: Record<StopLimit, string> = { turns: 'its turn limit', time: 'its time limit', cost: 'its cost limit' };
/** What the resume command suggests adding (people change the figure). */
const SUGGESTED: Record<StopLimit, string> = { turns: '+20', time: '+20', cost: '+$2' };

/** The host's list of a checkpoint's files as the state keeps it: a few names, and how many there were. */
export function keptFiles(files: readonly string[] | undefined): JobState['kept'] {
  if (!files?.length) return null;
  return { files: files.slice(0, KEPT_FILES_SHOWN).map((f) => f.slice(0, 200)), total: files.length };
}

/**
 * One sentence for a job an agent's limit stopped with its work kept (empty otherwise): which
 * limit, what is kept where, and the command that resumes from it. File names are the agent's:
 * each in a code span it cannot close.
 */
export function keptNote(runId: string, stepId: string, job: JobState): string {
  if (!job.limit || job.checkpoint === null) return '';
  const files = job.kept
    ? `${job.kept.total} file${job.kept.total === 1 ? '' : 's'} (${job.kept.files.map((f) => codeSpan(f, 80)).join(', ')}${job.kept.total > job.kept.files.length ? ', …' : ''})`
    : 'its work';
  const where = job.kind === 'fix' ? 'its fix round\'s step branch' : `\`${stepBranch(runId, stepId, job.index)}\``;
  return `stopped by ${LIMIT_TEXT[job.limit]}; kept ${files} in commit \`${job.checkpoint.slice(0, 7)}\` on ${where}. Continue from there with \`/baton retry ${stepId} ${RAISE_FLAG[job.limit]} ${SUGGESTED[job.limit]}\``;
}
