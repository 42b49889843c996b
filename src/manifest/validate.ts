// Validating a set of manifest files together: each on its own, then what only a set
// can get wrong (two workflows answering the same label, command or name; a label step
// adding a label that starts another workflow, or that the repository's GitHub workflows
// react to).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compareDiagnostics, q } from './diagnostics.ts';
import { gateLabelsIn } from './gate-labels.ts';
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
  checkGateLabels(results, cwd);
  for (const r of results) {
    r.diagnostics.sort(compareDiagnostics);
    r.valid = !r.diagnostics.some((d) => d.severity === 'error');
    if (!r.valid) delete r.loaded;
  }
  return { valid: results.every((r) => r.valid), files: results };
}

/** The diagnostic of `pointer` in `r`'s file, located in its source. */
function diagnosticAt(r: FileResult, source: SourceFile, pointer: string, message: string): FileResult['diagnostics'][number] {
  const pos = source.locate(pointer);
  return { file: r.file, line: pos.line, column: pos.column, pointer, message, severity: 'error' };
}

/**
 * A label step never lists a label the repository's own GitHub workflows react to when it is
 * added (gate-labels.ts: "safe to test" on `pull_request_target`): an App's label opens that
 * gate like a maintainer's would, and an agent steered by what it read would choose it.
 */
function checkGateLabels(results: FileResult[], cwd: string): void {
  const gates = new Map(gateLabelsIn(cwd).map((g) => [g.name.trim().toLowerCase(), g]));
  if (!gates.size) return;
  for (const r of results) {
    let source: SourceFile | undefined;
    r.loaded?.workflow.steps.forEach((s, i) => {
      if (s.kind !== 'label') return;
      s.labels.forEach((name, j) => {
        const gate = gates.get(name.trim().toLowerCase());
        if (!gate) return;
        source ??= new SourceFile(r.file, readFileSync(resolve(cwd, r.file), 'utf8'));
        const message = `\`labels\` item ${j + 1} of step ${q(s.id)} is ${q(name.trim())}, a label ${gate.file} reacts to when it is added (${gate.events.map((e) => `\`${e}\``).join(', ')} on \`labeled\`): a label the App adds opens that gate like a maintainer's would, with what that workflow holds (secrets, a write token); take it out of the list`;
        r.diagnostics.push(diagnosticAt(r, source, `/steps/${i}/label/labels/${j}`, message));
      });
    });
  }
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
        const message = `\`labels\` item ${j + 1} of step ${q(s.id)} is ${q(name.trim())}, the label that starts workflow ${q(other.loaded!.workflow.name)} (${other.file}): a step must not add a label that starts a workflow (an agent could start runs at will)`;
        r.diagnostics.push(diagnosticAt(r, sourceOf(r), `/steps/${i}/label/labels/${j}`, message));
      });
    });
  }
}
