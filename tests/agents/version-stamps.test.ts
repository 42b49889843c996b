// The versions baton's pieces say of themselves (src/compat.ts): which meet, and what a stamp
// from a task or a result may hold. A stamp comes from an input or an artifact anyone with
// write access (or the agent, next to the result) could have written: only a well-formed
// version is ever quoted in the record.
import { describe, expect, it } from 'vitest';
import { meets, olderThan, ownStamp, skewRefusal, stampOf, workerStampOf } from '../../src/compat.ts';
import { parseResult } from '../../src/agents/result.ts';
import { decodeTask, encodeTask, readTask } from '../../src/agents/task.ts';
import { makeTask } from './helpers.ts';

const s = (version: string, format = 1) => ({ version, format });

describe('versions that work together', () => {
  it('meet within one line and one format: a major from 1.0.0 on, a minor below it', () => {
    expect(meets(s('1.3.0'), s('1.5.2'))).toBe(true);
    expect(meets(s('1.9.9'), s('2.0.0'))).toBe(false);
    expect(meets(s('0.4.1'), s('0.4.7'))).toBe(true);
    expect(meets(s('0.4.1'), s('0.5.0'))).toBe(false);
    expect(meets(s('1.3.0', 1), s('1.3.0', 2))).toBe(false);
    expect(olderThan('0.2.0-rc.1', '0.2.0')).toBe(true);
    expect(olderThan('0.10.0', '0.9.0')).toBe(false);
  });

  it('a refusal names both versions, the line they would share and baton update', () => {
    expect(skewRefusal(s('0.4.1'), s('0.4.9'), 'The worker', 'build')).toBeNull();
    const text = skewRefusal(s('0.4.1'), s('0.5.0'), 'The worker', 'build')!;
    expect(text).toContain('The worker is baton 0.5.0 (task/result format 1), but this run is baton 0.4.1 (format 1): refused. They work together only within baton 0.4.x');
    expect(text).toContain('`npx -y @baton-dev/baton@0.4.1 update`');
    expect(text).toContain('`/baton retry build`');
    expect(skewRefusal(s('0.4.1'), null, 'The worker', 'build')).toContain('The worker is a baton that does not say its version');
  });

  it('takes only a well-formed stamp from a task or a result', () => {
    expect(stampOf({ version: '0.1.0; rm -rf /', format: 1 })).toBeNull();
    expect(stampOf({ version: '0.1.0', format: '1' })).toBeNull();
    expect(workerStampOf({ version: '1.2.3', format: 1, files: '<!-- baton:record -->' })).toEqual({ version: '1.2.3', format: 1, files: null });
    const result = { version: 1, run: 'r', step: 's', slot: '0', attempt: 1, status: 'succeeded', outputs: null, error: null, usage: {}, base: 'b', changes: [], backend: 'x', durationMs: 1 };
    expect(parseResult(JSON.stringify({ ...result, baton: { version: '@everyone', format: 1 } })).baton).toBeUndefined();
    expect(parseResult(JSON.stringify({ ...result, baton: { version: '0.3.0', format: 1, files: '0.2.0' } })).baton).toEqual({ version: '0.3.0', format: 1, files: '0.2.0' });
    // Another result format is another baton: the refusal says so, without quoting what it holds.
    expect(() => parseResult(JSON.stringify({ ...result, version: 'x<b>', baton: { version: '2.0.0', format: 2 } }))).toThrow(/version "string" is not 1; its worker is baton 2\.0\.0 and this is baton /);
  });

  it('the task carries the dispatching baton, and the command the worker runs is the engine\'s alone', () => {
    const task = makeTask();
    expect(readTask(encodeTask(task)).from).toEqual(ownStamp());
    expect(readTask(encodeTask(task, s('0.7.2'))).from).toEqual(s('0.7.2'));
    expect(decodeTask(encodeTask(task))).toEqual(task);
  });
});
