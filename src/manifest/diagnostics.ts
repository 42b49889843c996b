// A problem found in a manifest, located the way compilers and editors expect.

export interface Diagnostic {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** JSON pointer into the file's document, e.g. `/steps/2/needs/0`. */
  pointer: string;
  message: string;
  severity: 'error' | 'warning';
}

/** `file:line:col: message`, the form editors and CI logs turn into links. */
export function formatDiagnostic(d: Diagnostic): string {
  const tag = d.severity === 'warning' ? 'warning: ' : '';
  return `${d.file}:${d.line}:${d.column}: ${tag}${d.message}`;
}

export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.message.localeCompare(b.message);
}

/** Quotes a name for a message: `plan`. */
export function q(name: unknown): string {
  return '`' + String(name) + '`';
}

export function listOf(names: readonly string[]): string {
  return names.length ? names.join(', ') : '(none)';
}

/** The closest candidate by edit distance, for "did you mean" hints; undefined when nothing is close. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  const w = word.toLowerCase();
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    // A long shared start (retry / retries) is as telling as a small edit distance.
    const score = commonPrefix(w, c.toLowerCase()) >= 4 ? Math.min(d, 1) : d;
    if (score < bestScore) {
      bestScore = score;
      best = c;
    }
  }
  // Short words are close to everything: demand more of them.
  const limit = word.length <= 1 ? 0 : word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length / 3));
  return bestScore <= limit ? best : undefined;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

export function didYouMean(word: string, candidates: readonly string[]): string {
  const n = nearest(word, candidates);
  return n ? `; did you mean ${q(n)}?` : '';
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
