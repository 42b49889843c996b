// `baton update` and the pins of `uses:` lines. The three-way merge (merge.ts) already moves a
// pin the user left as baton wrote it. What it cannot do alone: a pin the user (or Dependabot)
// moved since is an edit on the same line baton changes, a conflict. So before the merge:
//   - a version pin (`@<sha> # vX.Y.Z`, or a tag `@vX`) at or below the version this baton
//     writes is put back to what baton wrote last time, and the merge moves it to this
//     version's pin like any unedited line;
//   - a newer one is kept: this version's text takes the user's pin for that action;
//   - any other ref (a branch, a fork, a bare SHA) is the user's choice, left to the merge.
import { compareVersions, usesLines, usesValue, versionOf, type UsesLine } from './uses-lines.ts';

export interface AlignedPins {
  yours: string;
  theirs: string;
  /** Pins the user has that are newer than this version's, kept: `name: value`. */
  kept: string[];
}

function rewrite(text: string, lines: UsesLine[], value: string): string {
  const all = text.split('\n');
  for (const u of lines) all[u.index] = `${all[u.index]!.slice(0, u.prefix.length)}${u.name}@${value}`;
  return all.join('\n');
}

export function alignPins(yours: string, base: string | undefined, theirs: string): AlignedPins {
  const target = new Map<string, { value: string; version: number[] }>();
  for (const u of usesLines(theirs)) {
    const version = versionOf(u);
    if (version && !target.has(u.name)) target.set(u.name, { value: usesValue(u), version });
  }
  const before = new Map<string, string>();
  for (const u of usesLines(base ?? '')) if (!before.has(u.name)) before.set(u.name, usesValue(u));

  const kept: string[] = [];
  const older: UsesLine[] = [];
  const newer = new Map<string, string>();
  for (const u of usesLines(yours)) {
    const t = target.get(u.name);
    const value = usesValue(u);
    if (!t || value === t.value || value === before.get(u.name)) continue;
    const version = versionOf(u);
    if (!version) continue;
    if (compareVersions(version, t.version) <= 0) older.push(u);
    else if (!newer.has(u.name)) newer.set(u.name, value);
  }
  let y = yours;
  for (const name of new Set(older.map((u) => u.name))) {
    y = rewrite(y, older.filter((u) => u.name === name), before.get(name) ?? target.get(name)!.value);
  }
  let t = theirs;
  for (const [name, value] of newer) {
    t = rewrite(t, usesLines(t).filter((u) => u.name === name), value);
    kept.push(`${name}: ${value} kept (newer than this baton's ${target.get(name)!.value})`);
  }
  return { yours: y, theirs: t, kept };
}

/** What moved, per action, between two texts of a file: `name: old → new`. */
export function pinChanges(before: string, after: string): string[] {
  const values = (text: string) => {
    const m = new Map<string, Set<string>>();
    for (const u of usesLines(text)) m.set(u.name, (m.get(u.name) ?? new Set()).add(usesValue(u)));
    return m;
  };
  const was = values(before);
  const now = values(after);
  const out: string[] = [];
  for (const name of [...new Set([...was.keys(), ...now.keys()])].sort()) {
    const a = [...(was.get(name) ?? [])];
    const b = [...(now.get(name) ?? [])];
    if (a.length === b.length && a.every((v) => b.includes(v))) continue;
    out.push(`${name}: ${a.join(', ') || '(none)'} → ${b.join(', ') || '(none)'}`);
  }
  return out;
}
