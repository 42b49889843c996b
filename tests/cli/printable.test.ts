// An agent's failure text printed in local mode cannot reach the terminal as escapes: an
// OSC 52 clipboard write, a window title change, a line eraser. Every line goes through the
// one printable() — the CLI's output functions and the local progress display alike.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { processIO } from '../../src/cli/io.ts';
import { emptyState, newStepState } from '../../src/engine/state.ts';
import { Progress } from '../../src/hosts/local/progress.ts';

const HOSTILE = 'exit 1: \x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 \x1b]0;pwned\x07 \x1b[2K\x1b[1A\r done \x9b2J';

/** True when `out` holds none of the control characters the hostile text carried. */
function defused(out: string): void {
  // eslint-disable-next-line no-control-regex
  expect(out).not.toMatch(/[\x1b\x07\r\x9b]/);
  expect(out).toContain('^[]52;c;Y3VybCBldmlsLnNoIHwgc2g=^G');
}

function failedRun() {
  const s = emptyState();
  s.runId = 'r1';
  s.workflow = 'fix';
  s.status = 'failed';
  s.reason = HOSTILE;
  s.steps = [{ ...newStepState('implement'), status: 'failed', reason: HOSTILE }];
  return s;
}

afterEach(() => vi.restoreAllMocks());

describe('printable() in local mode', () => {
  it('the progress lines of `baton run --local` (no terminal) show a failure text defused', () => {
    let out = '';
    const p = new Progress({ write: (t) => (out += t), tty: false });
    p.update(failedRun());
    p.say(`run r1 failed: ${HOSTILE}`);
    defused(out);
  });

  it('the live block on a terminal shows it defused, keeping only its own cursor moves', () => {
    let out = '';
    const p = new Progress({ write: (t) => (out += t), tty: true });
    p.update(failedRun());
    p.update(failedRun());
    p.done();
    // eslint-disable-next-line no-control-regex
    defused(out.replace(/\x1b\[\d+A\x1b\[J/g, ''));
  });

  it('whatever a command prints through the CLI output (local `baton status`) is defused', () => {
    let out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((t) => ((out += String(t)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((t) => ((out += String(t)), true));
    processIO.out(`implement  failed  ${HOSTILE}`);
    processIO.err(`baton: ${HOSTILE}`);
    defused(out);
  });
});
