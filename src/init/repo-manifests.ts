// The repository's manifests as baton.yml must serve them: every .agents/workflows/*.yml on
// disk (with `extends` of the library), the texts baton is about to write taking the place
// of what is on disk. A manifest that does not load is named, not counted: `baton validate`
// says what is wrong with it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadWorkflowText } from '../manifest/load.ts';
import type { Workflow } from '../manifest/types.ts';
import { MANIFESTS_DIR, workflowName } from '../manifest/warn-token.ts';
import { eventSubscriptions, type EventSubscriptions } from './event-subscriptions.ts';

export interface RepoManifests {
  workflows: Workflow[];
  /** Manifests that do not load (their triggers are not in the derivation). */
  invalid: string[];
}

/** `texts`: path (relative to the root) → the text baton writes there, instead of the disk's. */
export function repoManifests(root: string, texts: Record<string, string> = {}): RepoManifests {
  const paths = new Set(Object.keys(texts).filter((p) => p.startsWith(`${MANIFESTS_DIR}/`) && /\.ya?ml$/.test(p)));
  const dir = join(root, MANIFESTS_DIR);
  if (existsSync(dir)) for (const name of readdirSync(dir)) if (/\.ya?ml$/.test(name)) paths.add(`${MANIFESTS_DIR}/${name}`);
  const out: RepoManifests = { workflows: [], invalid: [] };
  for (const path of [...paths].sort()) {
    const text = texts[path] ?? readFileSync(join(root, path), 'utf8');
    const loaded = loadWorkflowText(path, text).loaded;
    if (loaded) out.workflows.push(loaded.workflow);
    else out.invalid.push(path);
  }
  return out;
}

/** The `name:` GitHub matches `workflow_run` against, of a workflow file in the checkout (`checks.workflow`). */
export function ciWorkflowNameIn(root: string): (file: string) => string | undefined {
  return (file) => {
    // A file name only (the schema's), never a path out of .github/workflows.
    if (!/^[\w.-]+\.ya?ml$/.test(file)) return undefined;
    const path = `.github/workflows/${file}`;
    const full = join(root, path);
    return existsSync(full) ? workflowName(path, readFileSync(full, 'utf8')) : undefined;
  };
}

/** What baton.yml must subscribe to for the repository at `root`. */
export function subscriptionsIn(root: string, texts: Record<string, string> = {}): { subscriptions: EventSubscriptions; invalid: string[] } {
  const m = repoManifests(root, texts);
  return { subscriptions: eventSubscriptions(m.workflows, ciWorkflowNameIn(root)), invalid: m.invalid };
}
