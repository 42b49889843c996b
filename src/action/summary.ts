// The job summary of one worker attempt: what was asked, what came back, what changed,
// what it cost. GitHub shows at most 1 MiB per step, so long parts are cut.
import type { DispatchWorker } from '../engine/commands.ts';
import type { WorkerResult } from '../agents/result.ts';
import type { DiffStatLine } from '../agents/changes.ts';

const MAX_BLOCK = 60_000;
const MAX_ROWS = 300;

const ICONS: Record<WorkerResult['status'], string> = { succeeded: '✅', 'invalid-output': '⚠️', crashed: '❌', 'timed-out': '⏱️', refused: '🚫' };

function clip(text: string): string {
  return text.length <= MAX_BLOCK ? text : `${text.slice(0, MAX_BLOCK)}\n[… ${text.length - MAX_BLOCK} more characters in the result artifact]`;
}

function fence(text: string, lang = ''): string {
  const longest = Math.max(0, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const f = '`'.repeat(Math.max(3, longest + 1));
  return `${f}${lang}\n${text}\n${f}`;
}

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function renderSummary(task: DispatchWorker, result: WorkerResult, prompt: string, diffstat: DiffStatLine[]): string {
  const who = task.backend ? `agent \`${task.agent ?? task.backend.uses}\` (${task.backend.uses}${task.backend.model ? `, ${task.backend.model}` : ''})` : '`run` command';
  // The step's own agent was set aside after repeated infrastructure failures (engine/breaker.ts).
  const standIn = task.fallbackFor ? `, standing in for \`${task.fallbackFor}\`` : '';
  const facts = [`run \`${task.runId}\``, who + standIn, duration(result.durationMs)];
  if (result.usage.costUsd !== undefined) facts.push(`$${result.usage.costUsd.toFixed(4)}${result.usage.costEstimated ? ' (estimated from token counts)' : ''}`);
  if (result.usage.inputTokens !== undefined || result.usage.outputTokens !== undefined) {
    facts.push(`${(result.usage.inputTokens ?? 0).toLocaleString('en-US')} in / ${(result.usage.outputTokens ?? 0).toLocaleString('en-US')} out tokens`);
  }
  const slot = task.index === null ? '' : ` [${task.index}]`;
  const out = [`### ${ICONS[result.status]} baton · ${task.workflow} · ${task.step}${slot} #${task.attempt} — ${result.status}`, '', facts.join(' · '), ''];
  if (result.error) out.push('**Error**', '', fence(clip(result.error)), '');
  out.push(`<details><summary>${task.prompt !== null ? 'Prompt' : 'Command'}</summary>`, '', fence(clip(prompt), 'text'), '', '</details>', '');
  out.push('#### Outputs', '', result.outputs === null ? '_none_' : fence(clip(JSON.stringify(result.outputs, null, 2)), 'json'), '');

  const stat = new Map(diffstat.map((d) => [d.path, d]));
  const plus = diffstat.reduce((s, d) => s + (d.added ?? 0), 0);
  const minus = diffstat.reduce((s, d) => s + (d.deleted ?? 0), 0);
  const n = result.changes.length;
  out.push(`#### Changes: ${n} file${n === 1 ? '' : 's'}, +${plus} −${minus}`, '');
  if (n) {
    out.push('| file | change | mode | + | − |', '|---|---|---|--:|--:|');
    for (const c of result.changes.slice(0, MAX_ROWS)) {
      const d = stat.get(c.path);
      const lines = d && d.added !== null ? [String(d.added), String(d.deleted)] : ['bin', 'bin'];
      const mode = c.mode === '100755' ? 'executable' : c.mode === '120000' ? 'symlink' : '';
      out.push(`| \`${cell(c.path)}\` | ${c.status} | ${mode} | ${lines[0]} | ${lines[1]} |`);
    }
    if (n > MAX_ROWS) out.push('', `… and ${n - MAX_ROWS} more in the result artifact.`);
  } else out.push('_no files changed_');
  out.push('');
  return out.join('\n');
}
