// Labels the repository's own GitHub workflows react to: a workflow that runs when a label is
// added (`types: [labeled]` on `pull_request_target`, `pull_request`, `issues`…) and names a
// label in an `if:` condition (`github.event.label.name == 'safe to test'`) is a gate a
// maintainer opens by hand, often with the repository's secrets. A label an App adds starts
// it like a person's would, so a baton label step must not list one (validate.ts).
//
// The names are the string literals of the workflow's `if:` conditions (GitHub's expressions
// quote with '…', '' for a quote): more than the label names, never fewer, and only a name a
// label step lists too is reported.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface GateLabel {
  name: string;
  /** The workflow file, relative to the repository's root. */
  file: string;
  /** The events it runs on when a label is added. */
  events: string[];
}

const WORKFLOWS_DIR = '.github/workflows';

/** The events of `on` whose `types` include `labeled`. */
function labeledEvents(on: unknown): string[] {
  if (!on || typeof on !== 'object' || Array.isArray(on)) return [];
  return Object.entries(on as Record<string, unknown>).flatMap(([event, spec]) => {
    const types = (spec as { types?: unknown } | null)?.types;
    const list = Array.isArray(types) ? types : typeof types === 'string' ? [types] : [];
    return list.includes('labeled') ? [event] : [];
  });
}

/** Every string value of an `if:` key anywhere under `node`. */
function conditions(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const v of node) conditions(v, out);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (k === 'if' && typeof v === 'string') out.push(v);
      else conditions(v, out);
    }
  }
  return out;
}

/** The gate labels of one workflow file (empty when it does not run on `labeled`, or cannot be read). */
export function gateLabelsOf(file: string, text: string): GateLabel[] {
  let doc: { on?: unknown; jobs?: unknown } | null;
  try {
    doc = parse(text) as typeof doc;
  } catch {
    return [];
  }
  const events = labeledEvents(doc?.on);
  if (!events.length) return [];
  const names = new Set<string>();
  for (const cond of conditions(doc?.jobs)) for (const m of cond.matchAll(/'((?:[^']|'')*)'/g)) names.add(m[1]!.replace(/''/g, "'"));
  return [...names].map((name) => ({ name, file, events }));
}

/** The gate labels of the repository at `root` (its `.github/workflows/*.yml`). */
export function gateLabelsIn(root: string): GateLabel[] {
  const dir = join(root, WORKFLOWS_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => /\.ya?ml$/.test(n))
    .sort()
    .flatMap((n) => {
      try {
        return gateLabelsOf(`${WORKFLOWS_DIR}/${n}`, readFileSync(join(dir, n), 'utf8'));
      } catch {
        return [];
      }
    });
}
