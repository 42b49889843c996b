// What a local run waits for from a person: an `ask` step's open questions or an
// `approve` step. Read from the state, so `baton status`, the exit-3 message and the
// MCP server all say the same thing.
import { waitingFor, type Waiting } from '../../record/view.ts';

export { waitingFor, type Waiting };

/** A run's status in a word or three: `waiting for approval (gate)`, `waiting for answers (ask)`, else the status. */
export function statusText(status: string, waits: Waiting[]): string {
  if (!waits.length) return status;
  return waits.map((w) => `waiting for ${w.kind === 'ask' ? 'answers' : 'approval'} (${w.step})`).join(', ');
}

export function describeWaiting(runId: string, waits: Waiting[]): string {
  const lines: string[] = [];
  for (const w of waits) {
    if (w.kind === 'ask') {
      lines.push(`Step \`${w.step}\` asks:`);
      w.open.forEach((i) => lines.push(`  ${i + 1}. ${w.questions[i]}`));
      lines.push(`Answer with: baton answer ${runId} ${w.questions.map((_, i) => (w.open.includes(i) ? `"<answer ${i + 1}>"` : '""')).join(' ')}`);
    } else {
      lines.push(`Step \`${w.step}\` waits for approval${w.message ? `: ${w.message}` : '.'}`);
      lines.push(`Approve with: baton approve ${runId}`);
    }
  }
  return lines.join('\n');
}
