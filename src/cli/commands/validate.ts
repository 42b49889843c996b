// `baton validate [PATH…] [--json]`
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { formatDiagnostic } from '../../manifest/diagnostics.ts';
import { findWorkflowFiles, validateFiles } from '../../manifest/validate.ts';
import { REPO_WORKFLOWS, workflowsRoot } from '../../hosts/local/workflows.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { subscriptionWarningsIn } from '../../manifest/warn-subscriptions.ts';
import { pushCiWarningsIn } from '../../manifest/warn-push-ci.ts';
import { startNotes } from './start-notes.ts';

export const DEFAULT_WORKFLOWS_DIR = REPO_WORKFLOWS;

/** The repository's workflow folder as seen from `cwd` (which may be any subfolder of it). */
function defaultPaths(cwd: string): string[] {
  const root = workflowsRoot(cwd);
  if (root === null) throw new UsageError(`no ${DEFAULT_WORKFLOWS_DIR} folder in ${cwd} or the folders above it up to the repository root; name files or folders to check`);
  return [relative(cwd, join(root, DEFAULT_WORKFLOWS_DIR))];
}

export const help = `Usage: baton validate [PATH…] [--json]

Checks workflow manifests: YAML, the schema, the step graph, agents, expressions,
and label or command collisions between the files given together. In Actions-only mode it
also warns about a trigger .github/workflows/baton.yml does not subscribe to (run
\`baton update\`) and a schedule there that no workflow uses. A workflow with no label and
no command gets a note saying which events or schedule start it (\`/baton <name>\` does
not) and how to run it on demand with \`baton run --local\`.

PATH is a file or a folder of *.yml files (default: the repository's ${DEFAULT_WORKFLOWS_DIR},
found from any subfolder of it).

Options:
  --json    print one JSON document instead of file:line:col messages
  -h, --help

Exit status: 0 all valid, 1 some file invalid, 2 usage error or nothing found.`;

export function validateCommand(args: string[], io: CliIO): number {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const paths = positionals.length ? positionals : defaultPaths(io.cwd);
  const { files, missing } = findWorkflowFiles(paths, io.cwd);
  if (missing.length) throw new UsageError(`no such file or folder: ${missing.join(', ')}`);
  if (!files.length) throw new UsageError(`no workflow files (*.yml, *.yaml) in ${paths.join(', ')}`);

  const report = validateFiles(files, { cwd: io.cwd });
  // Actions-only mode: a trigger baton.yml does not subscribe to, a cron no manifest uses; and the
  // repository's push CI that would run on baton's branches (paths as seen from here).
  const root = workflowsRoot(io.cwd);
  const setup = (root === null ? [] : [...subscriptionWarningsIn(root), ...pushCiWarningsIn(root)]).map((w) => ({ ...w, file: relative(io.cwd, join(root!, w.file)) }));
  // A workflow only its events or schedule start: say so, since `/baton <name>` and labels do nothing for it.
  const notes = startNotes(report.files.map((f) => ({ file: f.file, workflow: f.loaded?.workflow })), io.cwd);
  if (values.json) {
    io.out(
      JSON.stringify(
        {
          valid: report.valid,
          files: report.files.map((f) => ({
            file: f.file,
            valid: f.valid,
            errors: f.diagnostics
              .filter((d) => d.severity === 'error')
              .map((d) => ({ file: d.file, line: d.line, column: d.column, pointer: d.pointer, message: d.message })),
            warnings: f.diagnostics
              .filter((d) => d.severity === 'warning')
              .map((d) => ({ file: d.file, line: d.line, column: d.column, pointer: d.pointer, message: d.message })),
          })),
          setup: setup.map((w) => ({ file: w.file, line: w.line, column: w.column, message: w.message })),
          notes,
        },
        null,
        2,
      ),
    );
  } else {
    for (const f of report.files) for (const d of f.diagnostics) (d.severity === 'error' ? io.err : io.out)(formatDiagnostic(d));
    for (const w of setup) io.out(formatDiagnostic({ ...w, pointer: '', severity: 'warning' }));
    for (const n of notes) io.out(`${n.file}:${n.line}:${n.column}: note: ${n.message}`);
    const bad = report.files.filter((f) => !f.valid).length;
    const summary = bad
      ? `${bad} of ${report.files.length} workflow file${report.files.length === 1 ? '' : 's'} invalid`
      : `${report.files.length} workflow file${report.files.length === 1 ? '' : 's'} valid`;
    (bad ? io.err : io.out)(summary);
  }
  return report.valid ? EXIT.ok : EXIT.failed;
}
