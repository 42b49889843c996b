// Validating a set of manifest files together: each on its own, then what only a set
// can get wrong (two workflows answering the same label, command or name; a label step
// adding a label that starts another workflow).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compareDiagnostics, q } from './diagnostics.ts';
import { loadWorkflowFile, type FileResult, type LibraryReader } from './load.ts';
import { SourceFile } from './source.ts';

export interface ValidationReport {
  valid: boolean;
  files: FileResult[];
}

/**
 * Workflow files under the given paths (files as given, folders: their *.yml/*.yaml,
 * sorted), named as the user wrote them; `cwd` is what relative paths are relative to.
 */
export function findWorkflowFiles(paths: string[], cwd = process.cwd()): { files: string[]; missing: string[] } {
  const files: string[] = [];
  const missing: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(resolve(cwd, p));
    } catch {
      missing.push(p);
      continue;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(resolve(cwd, p)).sort()) if (/\.ya?ml$/.test(name)) files.push(join(p, name));
    } else files.push(p);
  }
  return { files, missing };
}

export function validateFiles(files: string[], opts: { cwd?: string; library?: LibraryReader } = {}): ValidationReport {
  const cwd = opts.cwd ?? process.cwd();
  const results = files.map((f) => loadWorkflowFile(resolve(cwd, f), opts.library, f));
  checkCollisions(results, cwd);
  for (const r of results) {
    r.diagnostics.sort(compareDiagnostics);
    r.valid = !r.diagnostics.some((d) => d.severity === 'error');
    if (!r.valid) delete r.loaded;
  }
  return { valid: results.every((r) => r.valid), files: results };
}

/** Two workflows of one repository must not answer the same label, command or name. */
function checkCollisions(results: FileResult[], cwd: string): void {
  const owners = new Map<string, FileResult>();
  const sources = new Map<string, SourceFile>();
  const sourceOf = (r: FileResult): SourceFile => {
    let s = sources.get(r.file);
    if (!s) sources.set(r.file, (s = new SourceFile(r.file, readFileSync(resolve(cwd, r.file), 'utf8'))));
    return s;
  };
  const claim = (key: string, r: FileResult, pointer: string, what: string): void => {
    const other = owners.get(key);
    if (!other) {
      owners.set(key, r);
      return;
    }
    if (other === r) return;
    const pos = sourceOf(r).locate(pointer);
    r.diagnostics.push({
      file: r.file,
      line: pos.line,
      column: pos.column,
      pointer,
      message: `${what} also belongs to workflow ${q(other.loaded!.workflow.name)} (${other.file}); each must start only one workflow`,
      severity: 'error',
    });
  };
  for (const r of results) {
    if (!r.loaded) continue;
    const wf = r.loaded.workflow;
    claim(`name:${wf.name}`, r, '/name', `workflow name ${q(wf.name)}`);
    wf.on.labels.forEach((l, i) => claim(`label:${l.toLowerCase()}`, r, `/on/labels/${i}`, `label ${q(l)}`));
    wf.on.commands.forEach((c, i) => claim(`command:${c}`, r, `/on/commands/${i}`, `command ${q('/baton ' + c)}`));
  }
  // A label step never lists a label that starts a workflow: an agent steered by what it read
  // would start that workflow at will (with the App's standing, not the reader's).
  for (const r of results) {
    r.loaded?.workflow.steps.forEach((s, i) => {
      if (s.kind !== 'label') return;
      s.labels.forEach((name, j) => {
        const other = owners.get(`label:${name.trim().toLowerCase()}`);
        if (!other || other === r) return; // its own workflow's: semantic.ts says so
        const pointer = `/steps/${i}/label/labels/${j}`;
        const pos = sourceOf(r).locate(pointer);
        r.diagnostics.push({
          file: r.file,
          line: pos.line,
          column: pos.column,
          pointer,
          message: `\`labels\` item ${j + 1} of step ${q(s.id)} is ${q(name.trim())}, the label that starts workflow ${q(other.loaded!.workflow.name)} (${other.file}): a step must not add a label that starts a workflow (an agent could start runs at will)`,
          severity: 'error',
        });
      });
    });
  }
}
