// What the sandbox did for an attempt reaches the step's record: the worker's report is read
// back from the untrusted artifact (checked, bounded, made printable), carried by the
// worker.finished / worker.failed event into the job's state, and shown as one line per step
// in the status comment.
import { describe, expect, it } from 'vitest';
import { InvalidResultError, parseResult, RESULT_VERSION } from '../../src/agents/result.ts';
import type { SandboxReport } from '../../src/engine/sandbox.ts';
import { sandboxSummary } from '../../src/engine/sandbox-summary.ts';
import { renderRecord } from '../../src/record/render.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { agent, workflow } from '../engine/builder.ts';
import { Run } from '../engine/harness.ts';

const FULL: SandboxReport = {
  enforced: ['egress-proxy', 'packet-filter', 'agent-user', 'resource-limits'],
  missing: [],
  refused: [{ host: 'evil.example', count: 3 }],
  unreachable: [],
  limit: null,
};
const base = { version: RESULT_VERSION, run: 'r', step: 's', slot: '0', attempt: 1, status: 'crashed', outputs: null, error: 'x', usage: {}, base: 'abc', changes: [], backend: 'command', durationMs: 1 };
const parse = (sandbox: unknown) => parseResult(JSON.stringify({ ...base, sandbox }));

describe('the sandbox report in the worker result', () => {
  it('is read back as written, and a result without one has none', () => {
    expect(parse(FULL).sandbox).toEqual(FULL);
    expect(parseResult(JSON.stringify(base)).sandbox).toBeUndefined();
  });

  it('refuses a report of the wrong shape, saying what is wrong', () => {
    expect(() => parse({ ...FULL, enforced: ['root-shell'] })).toThrow(InvalidResultError);
    expect(() => parse({ ...FULL, enforced: ['root-shell'] })).toThrow(/`sandbox.enforced` names an unknown protection "root-shell"/);
    expect(() => parse({ ...FULL, refused: [{ host: 'a', count: -1 }] })).toThrow(/`sandbox.refused` entry needs a `host` and a whole `count`/);
    expect(() => parse({ ...FULL, limit: 'disk' })).toThrow(/`sandbox.limit` must be one of cpu, memory, processes/);
    expect(() => parse('everything')).toThrow(/`sandbox` must be an object/);
  });

  it('bounds its lists and strings and makes them printable', () => {
    const hostile = { ...FULL, refused: Array.from({ length: 500 }, (_, i) => ({ host: `h${i}.example\u001b]52;c;aGk=\u0007${'x'.repeat(400)}`, count: 1 })), missing: [{ protection: 'packet-filter', reason: 'nft\nnot\u001b[2J found' }] };
    const r = parse(hostile).sandbox!;
    expect(r.refused).toHaveLength(100);
    expect(r.refused[0]!.host).toHaveLength(260);
    // eslint-disable-next-line no-control-regex -- the point: no control character reaches the report
    expect(r.refused[0]!.host).not.toMatch(/[\u0000-\u001f]/);
    expect(r.refused[0]!.host.startsWith('h0.example^[]52;c;aGk=^G')).toBe(true);
    expect(r.missing[0]!.reason).toBe('nft not^[[2J found');
  });
});

describe('the sandbox line of a step', () => {
  it('names what was enforced, what was refused and how often', () => {
    expect(sandboxSummary(FULL)).toBe('sandbox: proxy, filter, own user, limits · refused: evil.example (3)');
  });

  it('says advisory when the packet filter is missing, with the reason once for all it explains', () => {
    const why = 'the sandbox setup step did not run on this machine';
    const line = sandboxSummary({ ...FULL, enforced: ['egress-proxy'], refused: [], missing: [{ protection: 'agent-user', reason: why }, { protection: 'packet-filter', reason: why }, { protection: 'resource-limits', reason: why }] });
    expect(line).toBe(`sandbox: advisory (proxy) — missing own user, filter, limits: ${why}`);
  });

  it('names the limit that ended the attempt and hosts the proxy could not reach, and stays bounded', () => {
    const line = sandboxSummary({ ...FULL, refused: Array.from({ length: 9 }, (_, i) => ({ host: `h${i}.example`, count: 1 })), unreachable: [{ host: 'api.anthropic.com', error: 'DNS lookup failed (ENOTFOUND)' }], limit: 'cpu' });
    expect(line).toContain(' · ran into its cpu limit · refused: h0.example (1), h1.example (1), h2.example (1) and 6 more · unreachable: api.anthropic.com (DNS lookup failed (ENOTFOUND))');
    expect(sandboxSummary({ ...FULL, refused: [{ host: 'x'.repeat(1000), count: 1 }], unreachable: [{ host: 'y'.repeat(1000), error: 'z'.repeat(1000) }] }).length).toBeLessThanOrEqual(300);
  });
});

describe('the sandbox line in the status comment', () => {
  it("shows each step's latest attempt, carried by its worker events into the state block", () => {
    const wf = workflow([agent('a', { writes: false }), agent('b', { writes: false })]);
    const r = new Run(wf);
    r.start();
    const d = r.dispatch('a');
    r.send({ type: 'worker.finished', step: 'a', slot: d.slot, attempt: d.attempt, outputs: {}, sandbox: FULL });
    const body = renderRecord(r.state, wf);
    expect(body).toContain('\n- a: sandbox: proxy, filter, own user, limits · refused: evil.example (3)\n');
    const block = readStateBlock(body);
    expect(block.ok && block.state.steps.find((s) => s.id === 'a')!.jobs[0]!.sandbox).toBe(sandboxSummary(FULL));
    // A step whose worker reported nothing shows no line.
    expect(body).not.toContain('- b: sandbox');
  });

  it('quotes a hostile host inert: no HTML comment can open in the record', () => {
    const wf = workflow([agent('a', { writes: false })]);
    const r = new Run(wf);
    r.start();
    const d = r.dispatch('a');
    r.send({ type: 'worker.failed', step: 'a', slot: d.slot, attempt: d.attempt, reason: 'crashed', error: 'boom', checkpoint: null, sandbox: { ...FULL, refused: [{ host: 'evil.example <!-- baton:record -->', count: 2 }] } });
    const body = renderRecord(r.state, wf);
    expect(body).toContain('- a: sandbox: proxy, filter, own user, limits · refused: evil.example &lt;!-- baton:record --&gt; (2)');
  });
});
