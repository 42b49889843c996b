import { describe, expect, it } from 'vitest';
import { decodeTask, encodeTask, TaskDecodeError } from '../../src/agents/task.ts';
import { makeTask } from './helpers.ts';

describe('task input codec', () => {
  it('round-trips a DispatchWorker and compresses a long prompt', () => {
    const task = makeTask({ prompt: 'Issue body: ' + 'the same sentence again. '.repeat(2000), base: 'a'.repeat(40) });
    const text = encodeTask(task);
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(text.length).toBeLessThan(JSON.stringify(task).length / 10);
    expect(decodeTask(text)).toEqual(task);
    // Line breaks from a YAML block scalar do not matter.
    expect(decodeTask(text.replace(/(.{60})/g, '$1\n'))).toEqual(task);
  });

  it('refuses a task too large for a workflow_dispatch input, saying so', () => {
    const noise = Array.from({ length: 60_000 }, (_, i) => ((i * 7919) % 65_521).toString(36)).join(' ');
    expect(() => encodeTask(makeTask({ prompt: noise }))).toThrowError(/workflow_dispatch input holds at most 65535/);
  });

  it.each([
    ['', 'is empty'],
    ['not base64!', 'not base64'],
    ['aGVsbG8=', 'does not inflate'],
    [Buffer.from(JSON.stringify({})).toString('base64'), 'does not inflate'],
  ])('refuses %j: %s', (input, message) => {
    expect(() => decodeTask(input)).toThrowError(TaskDecodeError);
    expect(() => decodeTask(input)).toThrowError(message);
  });

  it('names the first field that is wrong', () => {
    const bad = (over: object) => () => decodeTask(encodeTask({ ...makeTask(), ...over } as never));
    expect(bad({ type: 'check-run' })).toThrowError('type is "check-run"');
    expect(bad({ attempt: 0 })).toThrowError('`attempt` must be a positive integer');
    expect(bad({ prompt: null, command: null })).toThrowError('neither a prompt nor a command');
    expect(bad({ backend: null })).toThrowError('a prompt needs `backend`');
    expect(bad({ env: { A: 1 } })).toThrowError('`env` must map names to strings');
  });
});

describe('the task’s sandbox request', () => {
  const sandbox = { network: { mode: 'allow', allow: ['api.anthropic.com', '*.docs.example.com:8443'] }, limits: { cpuSeconds: 600, memoryMb: null, processes: 4096 }, required: true } as const;

  it('round-trips, and a task without one (an older baton’s) still decodes', () => {
    const task = makeTask({ sandbox: { ...sandbox, network: { ...sandbox.network, allow: [...sandbox.network.allow] } } });
    expect(decodeTask(encodeTask(task))).toEqual(task);
    expect(decodeTask(encodeTask(makeTask())).sandbox).toBeUndefined();
  });

  it('refuses a malformed one, naming what is wrong, rather than run with less than it asks', () => {
    const bad = (s: unknown) => () => decodeTask(encodeTask({ ...makeTask(), sandbox: s } as never));
    expect(bad('on')).toThrowError('`sandbox` must be an object { network, limits, required }');
    expect(bad({ ...sandbox, required: 'yes' })).toThrowError('`sandbox` `required` must be true or false');
    expect(bad({ ...sandbox, network: { mode: 'open', allow: [] } })).toThrowError('`network.mode` must be "off" or "allow"');
    expect(bad({ ...sandbox, network: { mode: 'off', allow: ['a.example.com'] } })).toThrowError('must be empty when `network.mode` is "off"');
    expect(bad({ ...sandbox, network: { mode: 'allow', allow: ['*.com'] } })).toThrowError('`network.allow`: "*.com" puts `*` directly on `com`');
    expect(bad({ ...sandbox, network: { mode: 'allow', allow: 'api.anthropic.com' } })).toThrowError('must be a list of host patterns');
    expect(bad({ ...sandbox, limits: { ...sandbox.limits, processes: -1 } })).toThrowError('`limits.processes` must be a positive integer or null');
    expect(bad({ network: sandbox.network, required: false })).toThrowError('must have `limits`');
  });
});
