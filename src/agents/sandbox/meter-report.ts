// What the proxy's meter (proxy-meter.ts) tells the worker's result: the attempt's cost and
// tokens as metered (they replace what the CLI reports of itself), and the transcript's lines.
import type { Usage } from '../backends/types.ts';
import type { MeterReport } from './proxy-meter.ts';

/** The attempt's usage as metered: priced from the table, not estimated, whatever the CLI printed. */
export function meteredUsage(r: MeterReport): Usage {
  return { costUsd: r.costUsd, inputTokens: r.inputTokens, outputTokens: r.outputTokens };
}

export function meterLines(r: MeterReport): string[] {
  const lines = [`baton: model cost metered by the sandbox's proxy: $${r.costUsd.toFixed(6)} for ${r.requests} model request${r.requests === 1 ? '' : 's'} (${r.inputTokens} input, ${r.outputTokens} output tokens), priced from baton's price table`];
  if (r.unknownModels.length) lines.push(`baton: not in baton's price table, priced at the highest rates of their API: ${r.unknownModels.join(', ')}`);
  if (r.unread) lines.push(`baton: the usage of ${r.unread} answer${r.unread === 1 ? '' : 's'} could not be read; each was charged the most it could have cost`);
  if (r.capMessage) lines.push(`${r.capMessage} (${r.refused} model request${r.refused === 1 ? '' : 's'} refused)`);
  return lines;
}
