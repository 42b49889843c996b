// A review a local run "posts": what GitHub would show on the pull request, as text for the
// terminal and the run's record. Each inline comment is `path:line` (or `path:start-end`), its
// body, and a suggested change as a unified diff of the lines it replaces, read from the
// commit the reviewer looked at. Everything here is the reviewer's output (an agent's): it is
// printed through `printable` by the caller and read from git only as `<commit>:<path>`.
import type { PostReview, ReviewComment } from '../../engine/index.ts';
import { failed, git } from './git.ts';

const VERDICT: Record<PostReview['event'], string> = {
  APPROVE: 'approves',
  REQUEST_CHANGES: 'requests changes',
  COMMENT: 'comments',
};

/** Most lines of a file a suggestion may replace (a reviewer's typo must not print a whole file). */
const MAX_REPLACED_LINES = 200;

export function renderLocalReview(cmd: PostReview, repo: string, what: string): string {
  const verdict = `${VERDICT[cmd.event]}${cmd.event === 'COMMENT' ? ` (${cmd.approved ? 'nothing to change' : 'changes suggested'})` : ''}`;
  const lines = [`── review of ${what} (step ${cmd.step}, attempt ${cmd.attempt}) at ${cmd.commit.slice(0, 12)}: the reviewer ${verdict}`, '', cmd.body.trim() || '(no summary)'];
  if (!cmd.comments.length) lines.push('', 'No inline comments.');
  for (const c of cmd.comments) lines.push('', ...renderComment(c, cmd.commit, repo));
  return lines.join('\n');
}

function where(c: ReviewComment): string {
  if (!c.path) return '(general)';
  if (!isLine(c.line)) return c.path;
  return isLine(c.start_line) && c.start_line < c.line ? `${c.path}:${c.start_line}-${c.line}` : `${c.path}:${c.line}`;
}

function isLine(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1;
}

function renderComment(c: ReviewComment, commit: string, repo: string): string[] {
  const out = [`${where(c)}`, ...c.body.trim().split('\n').map((l) => `  ${l}`)];
  if (c.suggestion === undefined) return out;
  const diff = suggestionDiff(c, commit, repo);
  out.push('  suggested change:', ...diff.map((l) => `    ${l}`));
  return out;
}

/** The suggestion as a unified diff against the commented lines; the replacement alone when those lines cannot be read. */
function suggestionDiff(c: ReviewComment, commit: string, repo: string): string[] {
  const added = c.suggestion!.replace(/\n$/, '').split('\n');
  const plain = added.map((l) => `+${l}`);
  if (!c.path || !isLine(c.line)) return plain;
  const first = isLine(c.start_line) && c.start_line <= c.line ? c.start_line : c.line;
  if (c.line - first + 1 > MAX_REPLACED_LINES) return plain;
  // `<commit>:<path>` reads the file as the reviewer saw it, from git's objects only: a path
  // the agent made up (`../x`, `-x`) names no blob and leaves just the replacement shown.
  const text = git(repo, ['show', `${commit}:${c.path}`], { allowFail: true });
  if (failed(text)) return plain;
  const file = text.split('\n');
  if (c.line > file.length) return plain;
  const removed = file.slice(first - 1, c.line);
  return [`--- a/${c.path}`, `+++ b/${c.path}`, `@@ -${first},${removed.length} +${first},${added.length} @@`, ...removed.map((l) => `-${l}`), ...plain];
}
