// `npm run demo` as a newcomer runs it: a subprocess that must end with a pull request on
// the emulator and exit 0, leaving no temp directory behind.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'baton-demo-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const demoDirs = () => new Set(readdirSync(tmpdir()).filter((d) => d.startsWith('baton-demo-') && !d.startsWith('baton-demo-test-')));

function npmRunDemo(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', 'demo', '--', ...args], { cwd: root, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('npm run demo', () => {
  it('runs a label-to-PR story on the emulator with the real App and Action, and exits 0', async () => {
    const before = demoDirs();
    const markdown = join(scratch, 'record.md');
    const { code, out } = await npmRunDemo(['--markdown', markdown, '--timeout', '150']);
    expect(code, out).toBe(0);

    // The story as printed: question and answer, parallel jobs, review and CI fix rounds, the PR.
    expect(out).toMatch(/@baton\[bot\] on #1: ❓ \*\*baton run `fix-issue-1-1` asks\*\*/);
    expect(out).toMatch(/@alice answers on #1: /);
    expect(out).toMatch(/▶ worker job baton fix-issue-1-1 implement\[2\] #1 started/);
    expect(out).toMatch(/review on #2 by @baton\[bot\]: 🔁 \*\*Changes requested\*\*/);
    expect(out).toMatch(/CI failed on [0-9a-f]{7}: 1 of 3 tests failed/);
    expect(out).toMatch(/pull request #2 opened \(draft\)/);
    expect(out).toMatch(/run {8}fix-issue-1-1 succeeded in [\d.]+s/);
    expect(out).toMatch(/PR {9}#2 \(draft\) Fix #1: .* — 3 files — http:\/\/127\.0\.0\.1:\d+\/acme\/widgets\/pull\/2/);
    expect(out).not.toMatch(/runner {5}|emulator {3}\d+ responses broke/);

    // The status comment the App left, as GitHub shows it.
    const record = readFileSync(markdown, 'utf8');
    expect(record).toContain('run `fix-issue-1-1` — succeeded (6 of 6 steps done)');
    expect(record).toMatch(/\| ✅ \| review \| passed after 1 fix round \|/);
    expect(record).toMatch(/\| ✅ \| ci \| passed after 1 fix round \|/);
    expect(record).toMatch(/<!-- baton:state v1 hmac-sha256=[0-9a-f]{64} /);

    // Its temp directory is gone (other demo runs may be going on: only new ones count).
    expect([...demoDirs()].filter((d) => !before.has(d))).toEqual([]);
  }, 180_000);
});
