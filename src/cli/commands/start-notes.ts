// How a workflow that nobody can start by hand on GitHub starts: one with no label and no
// command (`on.labels: []`, `on.commands: []`) runs only from its events or schedule, and
// `/baton <name>`, the MCP server and a label do nothing for it. `baton validate` and
// `baton doctor` say so, with the events, and how to run it on demand locally.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SourceFile } from '../../manifest/source.ts';
import type { Workflow } from '../../manifest/types.ts';

/** The workflow's automatic triggers, as people read them (`pull_request (opened, synchronize)`). */
export function automaticTriggers(wf: Workflow): string[] {
  const on = wf.on;
  const out: string[] = [];
  if (on.pullRequest) out.push(`pull_request (${on.pullRequest.types.join(', ')})`);
  if (on.issues) out.push(`issues (${on.issues.types.join(', ')})`);
  if (on.workflowRun) out.push(`workflow_run of ${on.workflowRun.workflows.map((w) => JSON.stringify(w)).join(', ')}`);
  for (const s of on.schedule ?? []) out.push(`schedule "${s.cron}" (UTC)`);
  return out;
}

/** How to run it on demand with `baton run --local`: the thread it would live on, stood in for. */
function localCommand(wf: Workflow): string {
  const words = ['baton', 'run', wf.name, '--local'];
  if (wf.on.pullRequest) words.push('--input', 'pr=<branch>');
  else if (wf.on.issues || wf.on.workflowRun) words.push('--input', 'issue="<text>"');
  return words.join(' ');
}

/** Null for a workflow a label or a command starts; else what starts it, in one sentence. */
export function startNote(wf: Workflow): string | null {
  if (wf.on.labels.length || wf.on.commands.length) return null;
  const auto = automaticTriggers(wf);
  const local = `on demand, locally: \`${localCommand(wf)}\``;
  if (!auto.length) return `\`${wf.name}\` has no label, no command and no event or schedule: nothing starts it on GitHub; ${local}`;
  return `\`${wf.name}\` has no label and no command: on GitHub it starts only from ${auto.join(', ')}, never from \`/baton ${wf.name}\`, a label or the MCP server; ${local}`;
}

export interface StartNote {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** The note of each workflow that needs one, placed at its `on:` key (the file's first line when it has none). */
export function startNotes(files: { file: string; workflow: Workflow | undefined }[], cwd: string): StartNote[] {
  const out: StartNote[] = [];
  for (const f of files) {
    const message = f.workflow ? startNote(f.workflow) : null;
    if (message === null) continue;
    let at = { line: 1, column: 1 };
    try {
      at = new SourceFile(f.file, readFileSync(resolve(cwd, f.file), 'utf8')).locate('/on', { key: true });
    } catch {
      // the file was read a moment ago; a position is a courtesy
    }
    out.push({ file: f.file, line: at.line, column: at.column, message });
  }
  return out;
}
