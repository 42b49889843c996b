// mode: validate — checks the workflow manifests and puts each problem on its file and
// line as an annotation; the step fails when any file is invalid.
import * as core from '@actions/core';
import { findWorkflowFiles, validateFiles } from '../../manifest/validate.ts';
import type { Inputs } from '../inputs.ts';
import { tokenWarningsIn } from '../../manifest/warn-token.ts';
import { pinWarningsIn } from '../../manifest/warn-pins.ts';
import { subscriptionWarningsIn } from '../../manifest/warn-subscriptions.ts';
import { pushCiWarningsIn } from '../../manifest/warn-push-ci.ts';

export async function validateMode(inputs: Inputs): Promise<void> {
  core.info(`baton validate: ${inputs.path} in ${inputs.workspace}`);
  const { files, missing } = findWorkflowFiles([inputs.path], inputs.workspace);
  if (missing.length) throw new Error(`no such file or folder: ${inputs.path} (relative to ${inputs.workspace}); set \`path\` to where the workflows are`);
  if (!files.length) {
    core.warning(`no workflow files (*.yml, *.yaml) in ${inputs.path}: nothing to validate`);
    core.setOutput('valid', 'true');
    return;
  }
  const report = validateFiles(files, { cwd: inputs.workspace });
  let errors = 0;
  let warnings = 0;
  for (const f of report.files) {
    for (const d of f.diagnostics) {
      const props = { title: 'baton validate', file: d.file, startLine: d.line, startColumn: d.column };
      if (d.severity === 'error') {
        errors++;
        core.error(d.message, props);
      } else {
        warnings++;
        core.warning(d.message, props);
      }
    }
  }
  // The GITHUB_TOKEN gotcha (docs/actions-only.md): CI that Actions-only mode would never start, or never hear finish.
  for (const w of tokenWarningsIn(inputs.workspace)) {
    warnings++;
    core.warning(w.message, { title: w.title, file: w.file, startLine: w.line, startColumn: w.column });
  }
  // A manifest's trigger baton.yml does not subscribe to, a cron no manifest uses (manifest/warn-subscriptions.ts).
  for (const w of subscriptionWarningsIn(inputs.workspace)) {
    warnings++;
    core.warning(w.message, { title: w.title, file: w.file, startLine: w.line, startColumn: w.column });
  }
  // The repository's push CI that would run agent-written code on baton's branches (manifest/warn-push-ci.ts).
  for (const w of pushCiWarningsIn(inputs.workspace)) {
    warnings++;
    core.warning(w.message, { title: w.title, file: w.file, startLine: w.line, startColumn: w.column });
  }
  // baton's own workflows running an action by tag (manifest/warn-pins.ts).
  for (const w of pinWarningsIn(inputs.workspace)) {
    warnings++;
    core.warning(w.message, { title: w.title, file: w.file, startLine: w.line, startColumn: w.column });
  }
  const bad = report.files.filter((f) => !f.valid).length;
  const line = bad
    ? `${bad} of ${files.length} workflow file${files.length === 1 ? '' : 's'} invalid (${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'})`
    : `${files.length} workflow file${files.length === 1 ? '' : 's'} valid${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`;
  core.setOutput('valid', String(report.valid));
  if (process.env.GITHUB_STEP_SUMMARY) {
    const rows = report.files.map((f) => `| \`${f.file}\` | ${f.valid ? '✅ valid' : '❌ invalid'} | ${f.diagnostics.map((d) => `${d.line}:${d.column} ${d.message}`.replace(/\|/g, '\\|').replace(/\n/g, ' ')).join('<br>')} |`);
    await core.summary.addRaw(['### baton validate', '', line, '', '| file | result | problems |', '|---|---|---|', ...rows, ''].join('\n'), true).write();
  }
  if (report.valid) core.info(line);
  else core.setFailed(line);
}
