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
