// Which manifest `baton run <workflow>` means: a file path, else a name in the
// repository's .agents/workflows/, else one of the bundled workflows-library/.
import { existsSync, readdirSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { formatDiagnostic } from '../../manifest/diagnostics.ts';
import { LIBRARY_DIR, loadWorkflowFile, workflowNameFromFile } from '../../manifest/load.ts';
import type { LoadedWorkflow } from '../../manifest/types.ts';

export const REPO_WORKFLOWS = '.agents/workflows';

export class WorkflowNotFoundError extends Error {}
export class InvalidWorkflowError extends Error {}

export interface WorkflowEntry {
  name: string;
  file: string;
  source: 'repository' | 'library';
}

/**
 * The folder whose `.agents/workflows/` a command run in `dir` means: `dir` or the nearest
 * folder above it that has one, never past the repository root (the first folder with a
 * `.git`), so that the commands work from any subfolder of a repository. Null when none has.
 */
export function workflowsRoot(dir: string): string | null {
  for (let d = resolve(dir); ; d = dirname(d)) {
    if (existsSync(join(d, REPO_WORKFLOWS))) return d;
    if (existsSync(join(d, '.git')) || dirname(d) === d) return null;
  }
}

/** Every workflow a local run can name: the repository's first, then the library's not shadowed. */
export function listWorkflows(repo: string): WorkflowEntry[] {
  const out: WorkflowEntry[] = [];
  const seen = new Set<string>();
  for (const [dir, source] of [[join(repo, REPO_WORKFLOWS), 'repository'], [LIBRARY_DIR, 'library']] as const) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort()) {
      const name = workflowNameFromFile(f);
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ name, file: join(dir, f), source });
    }
  }
  return out;
}

export function findWorkflow(repo: string, nameOrPath: string, cwd = process.cwd()): string {
  if (/[/\\]|\.ya?ml$/.test(nameOrPath)) {
    const path = isAbsolute(nameOrPath) ? nameOrPath : resolve(cwd, nameOrPath);
    if (existsSync(path)) return path;
    throw new WorkflowNotFoundError(`no workflow file ${nameOrPath}`);
  }
  const hit = listWorkflows(repo).find((w) => w.name === nameOrPath);
  if (hit) return hit.file;
  const names = listWorkflows(repo).map((w) => w.name);
  throw new WorkflowNotFoundError(
    `no workflow \`${nameOrPath}\` in ${REPO_WORKFLOWS}/ or the bundled workflows-library/; known: ${names.join(', ') || '(none)'}`,
  );
}

/** Loads and validates a manifest; an invalid one throws with every file:line:col error. */
export function loadWorkflow(file: string): LoadedWorkflow {
  const r = loadWorkflowFile(file);
  if (!r.valid || !r.loaded) {
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
    throw new InvalidWorkflowError(`${file} is not a valid workflow:\n${errors.join('\n')}`);
  }
  return r.loaded;
}
