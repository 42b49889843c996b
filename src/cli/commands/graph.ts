// `baton graph <workflow>`
import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import { formatDiagnostic } from '../../manifest/diagnostics.ts';
import { toMermaid } from '../../manifest/graph.ts';
import { loadWorkflowFile } from '../../manifest/load.ts';
import { sandboxLines } from '../../manifest/network.ts';
import { findWorkflow, WorkflowNotFoundError, workflowsRoot } from '../../hosts/local/workflows.ts';
import { EXIT, UsageError, errorLine, type CliIO } from '../io.ts';

export const help = `Usage: baton graph <workflow>

Prints the workflow's step graph as a mermaid flowchart (paste it into a GitHub
comment or https://mermaid.live to see it), then, as mermaid comments (%%), what
each agent may reach in the sandbox and whether it requires it, and the steps that
narrow that. <workflow> is named as for \`baton run\`:
a name in the repository's .agents/workflows/, else in baton's bundled
workflows-library/, or a path to a manifest file.

Exit status: 0 printed, 1 invalid workflow, 2 usage error or no such workflow.`;

export function graphCommand(args: string[], io: CliIO): number {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) throw new UsageError('graph takes exactly one workflow (a name or a manifest file)');
  let file: string;
  try {
    file = findWorkflow(workflowsRoot(io.cwd) ?? io.cwd, positionals[0]!, io.cwd);
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    io.err(errorLine('graph', err.message));
    return EXIT.usage;
  }
  const result = loadWorkflowFile(file, undefined, relative(io.cwd, file) || file);
  if (!result.loaded) {
    for (const d of result.diagnostics) io.err(formatDiagnostic(d));
    return EXIT.failed;
  }
  // What each agent may reach, as mermaid comments: the output still pastes as one chart.
  const sandbox = sandboxLines(result.loaded.workflow).map((l) => `%% ${l}`);
  io.out([toMermaid(result.loaded.workflow), ...sandbox].join('\n'));
  return EXIT.ok;
}
