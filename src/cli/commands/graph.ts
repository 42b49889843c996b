// `baton graph <workflow-file>`
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { formatDiagnostic } from '../../manifest/diagnostics.ts';
import { toMermaid } from '../../manifest/graph.ts';
import { loadWorkflowFile } from '../../manifest/load.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';

export const help = `Usage: baton graph <workflow-file>

Prints the workflow's step graph as a mermaid flowchart (paste it into a GitHub
comment or https://mermaid.live to see it).`;

export function graphCommand(args: string[], io: CliIO): number {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('graph takes exactly one workflow file');
  const result = loadWorkflowFile(resolve(io.cwd, positionals[0]!), undefined, positionals[0]!);
  if (!result.loaded) {
    for (const d of result.diagnostics) io.err(formatDiagnostic(d));
    return EXIT.failed;
  }
  io.out(toMermaid(result.loaded.workflow));
  return EXIT.ok;
}
