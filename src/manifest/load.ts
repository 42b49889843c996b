// Loading one manifest: YAML with positions → schema → extends → normalise → semantic
// checks. Never throws for bad input: every problem becomes a located Diagnostic.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extend, single, type Composed } from './compose.ts';
import { compareDiagnostics, q, type Diagnostic } from './diagnostics.ts';
import { normalize } from './normalize.ts';
import { checkSchema } from './schema-check.ts';
import { checkSemantics } from './semantic.ts';
import { SourceFile } from './source.ts';
import type { LoadedWorkflow, Workflow } from './types.ts';

/**
 * The library that `extends:` names refer to, shipped with the package: two levels up
 * from this file in the sources, one level up from the Action's bundle in dist/.
 */
export const LIBRARY_DIR =
  ['../../workflows-library/', '../workflows-library/'].map((u) => fileURLToPath(new URL(u, import.meta.url))).find((dir) => existsSync(dir)) ??
  fileURLToPath(new URL('../../workflows-library/', import.meta.url));

export interface LibraryFile {
  file: string;
  text: string;
}

/** Finds a library workflow by name (`fix-issue` or `fix-issue.yml`). */
export type LibraryReader = (name: string) => LibraryFile | undefined;

export const readBundledLibrary: LibraryReader = (name) => {
  if (!/^[a-z0-9][a-z0-9-]*(\.ya?ml)?$/.test(name)) return undefined;
  for (const candidate of /\.ya?ml$/.test(name) ? [name] : [`${name}.yml`, `${name}.yaml`]) {
    const path = join(LIBRARY_DIR, candidate);
    if (existsSync(path)) return { file: `workflows-library/${candidate}`, text: readFileSync(path, 'utf8') };
  }
  return undefined;
};

export interface FileResult {
  file: string;
  valid: boolean;
  diagnostics: Diagnostic[];
  /** Present when the file is valid. */
  loaded?: LoadedWorkflow;
}

export function workflowNameFromFile(file: string): string {
  return basename(file).replace(/\.ya?ml$/, '');
}

export function hashWorkflow(workflow: Workflow): string {
  return createHash('sha256').update(JSON.stringify(workflow)).digest('hex');
}

export function loadWorkflowText(file: string, text: string, library: LibraryReader = readBundledLibrary): FileResult {
  const diagnostics: Diagnostic[] = [];
  const composed = compose(new SourceFile(file, text), library, diagnostics, []);
  let loaded: LoadedWorkflow | undefined;
  if (composed && !diagnostics.some((d) => d.severity === 'error')) {
    const raw = { ...composed.raw };
    const workflow = normalize(raw, workflowNameFromFile(file));
    checkSemantics(workflow, (pointer, message, opts = {}) => {
      const { source, pointer: local } = composed.origin(pointer);
      const pos = opts.expression !== undefined ? source.locateExpression(local, opts.expression) : source.locate(local, { key: opts.key ?? false });
      diagnostics.push({ file: source.file, line: pos.line, column: pos.column, pointer: local, message, severity: opts.warning ? 'warning' : 'error' });
    });
    if (!diagnostics.some((d) => d.severity === 'error')) loaded = { file, workflow, hash: hashWorkflow(workflow) };
  }
  diagnostics.sort(compareDiagnostics);
  return { file, valid: loaded !== undefined, diagnostics, ...(loaded && { loaded }) };
}

/** Loads a file; `display` is the name to report it under (as the user wrote it). */
export function loadWorkflowFile(path: string, library?: LibraryReader, display = path): FileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    return { file: display, valid: false, diagnostics: [{ file: display, line: 1, column: 1, pointer: '', message: `cannot read the file: ${reason}`, severity: 'error' }] };
  }
  return loadWorkflowText(display, text, library);
}

/** Parses and schema-checks one file, then the library file it extends (recursively). */
function compose(source: SourceFile, library: LibraryReader, out: Diagnostic[], chain: string[]): Composed | undefined {
  const error = (pointer: string, message: string, atKey = false): void => {
    const pos = source.locate(pointer, { key: atKey });
    out.push({ file: source.file, line: pos.line, column: pos.column, pointer, message, severity: 'error' });
  };
  if (source.syntaxErrors.length) {
    out.push(...source.syntaxErrors);
    return undefined;
  }
  const dropped = source.truncatedByComment();
  if (dropped.length) {
    out.push(...dropped);
    return undefined;
  }
  const data = source.toJS();
  if (data === null || data === undefined) {
    error('', 'the file is empty; a workflow needs at least `steps`');
    return undefined;
  }
  const problems = checkSchema(data);
  for (const p of problems) error(p.pointer, p.message, p.atKey);
  if (problems.length) return undefined;

  const raw = data as Record<string, any>;
  if (raw.extends === undefined) return single(source, raw);
  const name = String(raw.extends);
  if (chain.includes(name)) {
    error('/extends', `${q(name)} extends itself through ${chain.map(q).join(' → ')}`);
    return undefined;
  }
  const parentFile = library(name);
  if (!parentFile) {
    error('/extends', `\`extends\` names ${q(name)}, which is not a workflow of workflows-library/`);
    return undefined;
  }
  const parent = compose(new SourceFile(parentFile.file, parentFile.text), library, out, [...chain, name]);
  if (!parent) return undefined;
  // The child's name is its own (or its file's), never the parent's.
  const { name: _parentName, ...parentRaw } = parent.raw;
  return extend({ raw: parentRaw, origin: parent.origin }, source, raw);
}
