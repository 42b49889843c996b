// What `npm run bench` tells CI: each figure with its target and whether it was met, and an
// exit status that fails the job when one is missed (unless --no-fail).
import { describe, expect, it } from 'vitest';
import type { Figure } from '../../bench/figures/figure.ts';
import { report } from '../../bench/report.ts';

const figure = (name: string, target?: Figure['target']): Figure => ({ name, description: name, unit: 'ms', target, measure: () => 0 });
const fast = { figure: figure('cli_help_ms', { op: '<', value: 100 }), value: 40 };
const slow = { figure: figure('webhook_ack_ms', { op: '<', value: 1000 }), value: 7600 };
const free = { figure: figure('state_compact_chars_200'), value: 12499 };

describe('bench report', () => {
  it('gives every figure its value, unit, target and whether it was met, as JSON', () => {
    const r = report([fast, slow, free], { json: true, noFail: true });
    expect(JSON.parse(r.stdout)).toEqual({
      cli_help_ms: { value: 40, unit: 'ms', target: '< 100', met: true },
      webhook_ack_ms: { value: 7600, unit: 'ms', target: '< 1000', met: false },
      state_compact_chars_200: { value: 12499, unit: 'ms', target: null, met: null },
    });
  });

  it('exits 1 naming the missed figures, in JSON and table form alike', () => {
    for (const json of [true, false]) {
      const r = report([fast, slow, free], { json, noFail: false });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe('1 figure missed its target: webhook_ack_ms\n');
    }
    expect(report([fast, slow], { json: false, noFail: false }).stdout).toMatch(/webhook_ack_ms\s+7,600 ms\s+< 1,000\s+MISSED/);
  });

  it('exits 0 when every target is met, and with --no-fail when one is not (still saying so)', () => {
    expect(report([fast, free], { json: true, noFail: false })).toMatchObject({ exitCode: 0, stderr: '' });
    const r = report([slow], { json: true, noFail: true });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('webhook_ack_ms (--no-fail: reported only)');
  });
});
