// The emulator as a person starts it: a subprocess that prints where it listens and
// serves acme/widgets to any client, also under the Enterprise prefix.
import { spawn, type ChildProcess } from 'node:child_process';
import { Octokit } from '@octokit/rest';
import { afterAll, describe, expect, it } from 'vitest';

let child: ChildProcess | undefined;
afterAll(() => {
  child?.kill('SIGTERM');
});

function start(): Promise<string> {
  const main = new URL('./main.ts', import.meta.url).pathname;
  child = spawn(process.execPath, ['--import', 'tsx', main, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child!.on('exit', (code) => reject(new Error(`emulator exited with ${code}: ${out}`)));
  });
}

describe('standalone emulator', () => {
  it('prints its address and serves acme/widgets at the root and under /api/v3', async () => {
    const url = await start();
    for (const baseUrl of [url, `${url}/api/v3`]) {
      const { data } = await new Octokit({ baseUrl }).repos.get({ owner: 'acme', repo: 'widgets' });
      expect(data).toMatchObject({ full_name: 'acme/widgets', default_branch: 'main' });
    }
    const { data: workflows } = await new Octokit({ baseUrl: url }).actions.listRepoWorkflows({ owner: 'acme', repo: 'widgets' });
    expect(workflows.total_count).toBe(0);
  });
});
