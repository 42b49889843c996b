// `extends:` — a workflow built on one of workflows-library/, overriding steps by id.
// The merged document remembers which file every part came from, so that errors
// found after merging still point at the right file and line.
import { joinPointer, parsePointer, type SourceFile } from './source.ts';

type Raw = Record<string, any>;

export interface Origin {
  source: SourceFile;
  pointer: string;
}

export interface Composed {
  raw: Raw;
  /** Maps a pointer into the merged document to the file and pointer it came from. */
  origin(pointer: string): Origin;
}

/** The document of a file that extends nothing. */
export function single(source: SourceFile, raw: Raw): Composed {
  return { raw, origin: (pointer) => ({ source, pointer }) };
}

/**
 * Child over parent: scalar top-level keys and `on`/`budget` from the child when it has
 * them; `inputs` and `agents` merged by name; steps with the same id replaced in
 * place, new steps appended.
 */
export function extend(parent: Composed, child: SourceFile, childRaw: Raw): Composed {
  const raw: Raw = { ...parent.raw };
  const topFrom = new Map<string, Origin['source'] | 'parent'>();
  for (const key of Object.keys(parent.raw)) topFrom.set(key, 'parent');
  for (const [key, value] of Object.entries(childRaw)) {
    if (key === 'extends' || key === 'steps' || key === 'inputs' || key === 'agents') continue;
    raw[key] = value;
    topFrom.set(key, child);
  }
  delete raw.extends;

  const mapFrom = new Map<string, 'parent' | 'child'>();
  for (const key of ['inputs', 'agents'] as const) {
    const merged: Raw = { ...(parent.raw[key] ?? {}) };
    for (const name of Object.keys(merged)) mapFrom.set(`${key}/${name}`, 'parent');
    for (const [name, value] of Object.entries(childRaw[key] ?? {})) {
      merged[name] = value;
      mapFrom.set(`${key}/${name}`, 'child');
    }
    if (Object.keys(merged).length) raw[key] = merged;
  }

  // Each merged step remembers its index in the file it came from.
  const steps: { value: Raw; from: 'parent' | 'child'; index: number }[] = (parent.raw.steps ?? []).map((value: Raw, index: number) => ({
    value,
    from: 'parent' as const,
    index,
  }));
  (childRaw.steps ?? []).forEach((value: Raw, index: number) => {
    const at = steps.findIndex((s) => s.value?.id === value?.id);
    const entry = { value, from: 'child' as const, index };
    if (at === -1) steps.push(entry);
    else steps[at] = entry;
  });
  raw.steps = steps.map((s) => s.value);

  const origin = (pointer: string): Origin => {
    const [top, second, ...rest] = parsePointer(pointer);
    if (top === 'steps' && second !== undefined) {
      const s = steps[Number(second)];
      if (s?.from === 'child') return { source: child, pointer: joinPointer('steps', s.index, ...rest) };
      if (s) return parent.origin(joinPointer('steps', s.index, ...rest));
    }
    if ((top === 'inputs' || top === 'agents') && second !== undefined) {
      if (mapFrom.get(`${top}/${second}`) === 'child') return { source: child, pointer };
      return parent.origin(pointer);
    }
    if (top !== undefined && topFrom.get(top) === child) return { source: child, pointer };
    if (top !== undefined && topFrom.get(top) === 'parent') return parent.origin(pointer);
    return { source: child, pointer };
  };
  return { raw, origin };
}
