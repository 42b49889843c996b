import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidResultError, readResultDir, readResultZip, writeResultDir, type ResultBundle, type WorkerResult } from '../../src/agents/result.ts';
import { seal } from '../../src/agents/leak-check.ts';

const sealed = (b: ResultBundle) => seal(b, [], () => b);

const dir = mkdtempSync(join(tmpdir(), 'baton-result-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const result: WorkerResult = {
  version: 1,
  run: 'fix-issue-42-1',
  step: 'implement',
  slot: '0',
  attempt: 1,
  status: 'succeeded',
  outputs: { summary: 'done' },
  error: null,
  usage: { costUsd: 0.12 },
  base: 'abc123',
  changes: [
    { path: 'src/a.ts', status: 'modified', mode: '100644' },
    { path: 'bin/run', status: 'added', mode: '100755' },
    { path: 'old.txt', status: 'deleted', mode: '100644' },
  ],
  backend: 'command',
  durationMs: 1200,
};

describe('worker result artifact', () => {
  it('round-trips through a directory and a zip of it', () => {
    const files = new Map([
      ['src/a.ts', Buffer.from('export const a = 1;\n')],
      ['bin/run', Buffer.from('#!/bin/sh\n')],
    ]);
    writeResultDir(join(dir, 'ok'), sealed({ result, files, transcript: 'hello' }));
    const back = readResultDir(join(dir, 'ok'));
    expect(back.result).toEqual(result);
    expect(Buffer.from(back.files.get('src/a.ts')!).toString()).toBe('export const a = 1;\n');
    expect(back.transcript).toBe('hello');

    const zip = zipSync({
      'result.json': readFileSync(join(dir, 'ok', 'result.json')),
      'transcript.txt': Buffer.from('hello'),
      'files/src/a.ts': files.get('src/a.ts')!,
      'files/bin/run': files.get('bin/run')!,
    });
    const fromZip = readResultZip(zip);
    expect(fromZip.result).toEqual(result);
    expect([...fromZip.files.keys()].sort()).toEqual(['bin/run', 'src/a.ts']);
  });

  it('refuses paths that escape the checkout or touch .git', () => {
    const gitSpellings = ['.git/config', 'sub/.git/config', '.GIT/config', '.Git/hooks/pre-commit', '.git./config', '.git . /config', 'a/.git::$INDEX_ALLOCATION/config', 'GIT~1/config', 'x/git~2/hooks/post-checkout', '.g\u200cit/config', '\ufeff.git/config'];
    for (const path of ['../x', '/etc/passwd', 'a/../../b', 'a\\b', 'a\u0000b', ...gitSpellings]) {
      const bad = { ...result, changes: [{ path, status: 'deleted', mode: '100644' }] };
      writeFileSync(join(dir, 'result.json'), JSON.stringify(bad));
      expect(() => readResultDir(dir), path).toThrow(InvalidResultError);
    }
  });

  it('keeps paths that only look like .git', () => {
    for (const path of ['.github/x.yml', 'a/.gitignore', '.gitattributes', 'git/x', 'gitx~1/y', 'docs/.git-blame-ignore-revs']) {
      const ok = { ...result, changes: [{ path, status: 'deleted', mode: '100644' }] };
      writeFileSync(join(dir, 'result.json'), JSON.stringify(ok));
      expect(() => readResultDir(dir), path).not.toThrow();
    }
  });

  it('refuses a result that lists a file it does not contain', () => {
    const zip = zipSync({ 'result.json': Buffer.from(JSON.stringify(result)) });
    expect(() => readResultZip(zip)).toThrow('lists src/a.ts as modified but does not contain it');
  });
});
