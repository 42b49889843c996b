// Live progress of a local run: the step list with states and times. On a terminal the
// block is redrawn in place (and ticks once a second while something runs); anywhere
// else each change is one plain line, so logs and CI output stay readable.
import { printable } from '../../printable.ts';
import type { RunState, StepState } from '../../engine/index.ts';
import { duration } from '../../record/format.ts';

const ICON: Record<StepState['status'], string> = {
  waiting: '·',
  running: '>',
  succeeded: '✓',
  failed: '✗',
  skipped: '-',
  cancelled: '✗',
};

export interface ProgressOptions {
  write(text: string): void;
  tty: boolean;
  now?: () => number;
}

export class Progress {
  private drawn = 0;
  private last: RunState | null = null;
  private seen = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private readonly now: () => number;

  constructor(private readonly opts: ProgressOptions) {
    this.now = opts.now ?? Date.now;
  }

  update(state: RunState): void {
    this.last = state;
    if (this.opts.tty) {
      this.redraw();
      const running = state.status === 'running' && state.steps.some((s) => s.status === 'running');
      if (running && !this.timer) {
        this.timer = setInterval(() => this.redraw(), 1000);
        this.timer.unref();
      } else if (!running) this.stopTimer();
      return;
    }
    for (const st of state.steps) {
      const line = this.stepLine(st, state, false);
      const sig = `${st.status}/${Math.max(0, ...st.jobs.map((j) => j.attempt))}/${st.gate?.phase ?? ''}/${st.gate?.round ?? ''}`;
      if (st.status === 'waiting' || this.seen.get(st.id) === sig) continue;
      this.seen.set(st.id, sig);
      this.opts.write(printable(line) + '\n');
    }
  }

  /** Prints a message above the block (TTY) or as lines. */
  say(text: string): void {
    this.clear();
    const safe = printable(text);
    this.opts.write(safe.endsWith('\n') ? safe : safe + '\n');
    if (this.opts.tty && this.last) this.redraw();
  }

  /** Leaves the last block on screen and stops ticking. */
  done(): void {
    this.stopTimer();
    this.drawn = 0;
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private clear(): void {
    if (this.opts.tty && this.drawn) this.opts.write(`\x1b[${this.drawn}A\x1b[J`);
    this.drawn = 0;
  }

  private redraw(): void {
    const s = this.last!;
    const head = `baton · ${s.workflow} · run ${s.runId} — ${s.status}${s.reason ? `: ${s.reason}` : ''}`;
    const lines = [head, ...s.steps.map((st) => this.stepLine(st, s, true))];
    this.clear();
    this.opts.write(printable(lines.join('\n')) + '\n');
    this.drawn = lines.length;
  }

  private stepLine(st: StepState, s: RunState, padded: boolean): string {
    const width = padded ? Math.max(...s.steps.map((x) => x.id.length)) : 0;
    const end = st.finishedAt ?? (st.status === 'running' ? Math.max(this.now(), s.clock) : null);
    const time = st.startedAt !== null && end !== null ? duration(end - st.startedAt) : '';
    const attempts = Math.max(0, ...st.jobs.map((j) => j.attempt));
    const detail = st.reason ?? (st.status === 'running' ? runningDetail(st) : '');
    // The agent's backend kept failing: its fallback runs this attempt (engine/breaker.ts).
    const standIn = st.jobs.find((j) => j.attempt === attempts && j.fallback)?.fallback;
    const attempt = attempts > 1 ? `attempt ${attempts}${standIn ? ` on ${standIn} (fallback)` : ''}` : '';
    const parts = [`${ICON[st.status]} ${st.id.padEnd(width)}`, st.status.padEnd(padded ? 9 : 0), time, attempt, detail];
    return parts.filter(Boolean).join('  ');
  }
}

function runningDetail(st: StepState): string {
  if (st.ask) return `waiting for ${st.ask.answers.filter((a) => a === null).length} answer(s)`;
  if (st.gate) return st.gate.phase === 'fixing' ? `fix round ${st.gate.round}` : st.gate.phase;
  if (st.jobs.length > 1) return `${st.jobs.filter((j) => j.status === 'succeeded').length} of ${st.jobs.length} done`;
  return '';
}
