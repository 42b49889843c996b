// What a local run waits for from a person: an `ask` step's open questions or an
// `approve` step. Read from the state, so `baton status`, the exit-3 message and the
// MCP server all say the same thing.
import type { RunState } from '../../engine/index.ts';
import type { Workflow } from '../../manifest/types.ts';

export interface Waiting {
  step: string;
  kind: 'ask' | 'approve';
  /** All the step's questions (answered ones too: `baton answer` answers by position). */
  questions: string[];
  /** Positions still unanswered. */
  open: number[];
  message: string | null;
}

export function waitingFor(state: RunState, workflow: Workflow): Waiting[] {
  if (state.status !== 'running') return [];
  const out: Waiting[] = [];
  for (const st of state.steps) {
    if (st.status !== 'running') continue;
    const kind = workflow.steps.find((s) => s.id === st.id)?.kind;
    if (kind === 'ask' && st.ask) {
      const open = st.ask.answers.flatMap((a, i) => (a === null ? [i] : []));
      if (open.length) out.push({ step: st.id, kind, questions: st.ask.questions, open, message: null });
    } else if (kind === 'approve') {
      out.push({ step: st.id, kind, questions: [], open: [], message: st.note });
    }
  }
  return out;
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
