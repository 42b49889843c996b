// The `uses: owner/repo[/path]@ref  # comment` lines of a workflow file, read line by line so
// that a change keeps every other byte of the file (the user's edits, comments, layout).
// Shared by `baton update` (pin-refresh.ts) and the tag-pin warnings (manifest/warn-pins.ts).

export interface UsesLine {
  /** 0-based line index. */
  index: number;
  /** Everything before the action's name: indentation, `- `, `uses:`, spaces. */
  prefix: string;
  /** `owner/repo[/path]` */
  name: string;
  ref: string;
  /** The text after `#`, trimmed (`v7.0.1`), if any. */
  comment?: string;
}

// Unquoted block-style values only: a quoted or flow-style `uses:` is left alone (reported by no one, changed by no one).
const USES = /^(\s*(?:-\s+)?uses:\s*)([^\s@#'"{}[\],]+)@([^\s#'"{}[\],]+)(?:\s+#\s*(.*?))?\s*$/;

export function usesLines(text: string): UsesLine[] {
  const out: UsesLine[] = [];
  text.split('\n').forEach((line, index) => {
    const m = USES.exec(line);
    if (!m || m[2]!.startsWith('./') || m[2]!.startsWith('docker:')) return;
    out.push({ index, prefix: m[1]!, name: m[2]!, ref: m[3]!, ...(m[4] ? { comment: m[4] } : {}) });
  });
  return out;
}

/** `ref # comment`, the part of a line a pin changes. */
export function usesValue(u: Pick<UsesLine, 'ref' | 'comment'>): string {
  return u.comment ? `${u.ref} # ${u.comment}` : u.ref;
}

/** A version read from a line: its comment (`# v7.0.1`, Dependabot's form) or a tag-like ref (`v5`). */
export function versionOf(u: Pick<UsesLine, 'ref' | 'comment'>): number[] | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?![\w-])/.exec(u.comment ?? '') ?? /^v(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(u.ref);
  return m ? [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)] : undefined;
}

export function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}
