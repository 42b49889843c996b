// The terminal view of a run: a line per thing that happened on the emulator, and the
// status comment as a compact checklist, printed again (only the rows that changed) on
// every edit.
import { RECORD_MARKER } from '../../src/record/render.ts';

export interface Row {
  icon: string;
  step: string;
  status: string;
  attempt: string;
  time: string;
}

export interface Record {
  title: string;
  rows: Row[];
}

/** The title line and checklist rows of a status comment's markdown. */
export function parseRecord(body: string): Record | null {
  if (!body.includes(RECORD_MARKER)) return null;
  const lines = body.split('\n');
  const title = (lines.find((l) => l.startsWith('### ')) ?? '').replace(/^###\s*/, '').replace(/`/g, '');
  const rows: Row[] = [];
  for (const line of lines) {
    if (!line.startsWith('| ') || line.startsWith('| | step') || line.startsWith('|---')) continue;
    const cells = line.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim());
    if (cells.length < 5) continue;
    const [icon = '', step = '', status = '', attempt = '', time = ''] = cells;
    rows.push({ icon, step, status: status.replace(/\\\|/g, '|'), attempt, time });
  }
  return { title, rows };
}

const useColour = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code: string) => (s: string) => (useColour ? `\x1b[${code}m${s}\x1b[0m` : s);
export const dim = paint('2');
export const bold = paint('1');
export const green = paint('32');
export const red = paint('31');
export const yellow = paint('33');
export const cyan = paint('36');

/** Width of the step column: the longest step name. */
function width(rows: Row[]): number {
  return Math.max(4, ...rows.map((r) => r.step.length));
}

export function rowLine(r: Row, w: number): string {
  const extra = [r.attempt && r.attempt !== '1' ? `attempt ${r.attempt}` : '', r.time].filter(Boolean).join(', ');
  return `${r.icon}  ${r.step.padEnd(w)}  ${r.status}${extra ? dim(`  (${extra})`) : ''}`;
}

export class View {
  private readonly t0 = Date.now();
  private last: Record | null = null;

  constructor(private readonly out: (line: string) => void = (l) => console.log(l)) {}

  elapsed(): number {
    return (Date.now() - this.t0) / 1000;
  }

  line(text: string): void {
    this.out(`${dim(`[${this.elapsed().toFixed(1).padStart(5)}s]`)} ${text}`);
  }

  /** Continuation lines under the last event, indented past the time. */
  detail(text: string): void {
    this.out(`          ${text}`);
  }

  /** Prints what changed in the status comment since the last edit. */
  record(body: string, url: string | undefined, created: boolean): void {
    const rec = parseRecord(body);
    if (!rec) return;
    const prev = this.last;
    this.last = rec;
    const w = width(rec.rows);
    if (created || !prev) {
      this.line(`${cyan('status comment')} posted${url ? dim(` ${url}`) : ''}: ${bold(rec.title)}`);
      for (const r of rec.rows) this.detail(rowLine(r, w));
      return;
    }
    const changed = rec.rows.filter((r) => {
      const p = prev.rows.find((x) => x.step === r.step);
      return !p || p.icon !== r.icon || p.status !== r.status || p.attempt !== r.attempt;
    });
    if (!changed.length && prev.title === rec.title) return;
    this.line(`${cyan('status comment')} edited: ${prev.title === rec.title ? dim(rec.title) : bold(rec.title)}`);
    for (const r of changed) this.detail(rowLine(r, w));
  }

  /** The whole checklist of the last status comment seen. */
  finalChecklist(): string[] {
    if (!this.last) return [];
    const w = width(this.last.rows);
    return [this.last.title, ...this.last.rows.map((r) => `  ${rowLine(r, w)}`)];
  }
}
