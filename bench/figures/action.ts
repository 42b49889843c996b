// The bundled Action as a runner starts it: how big it is, and how long `node
// dist/action.js` takes from spawn to its first line of work (every worker job pays it).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { median } from '../measure.ts';
import type { Figure } from './figure.ts';

const ACTION = fileURLToPath(new URL('../../dist/action.js', import.meta.url));

export const actionBundleBytes: Figure = {
  name: 'action_bundle_bytes',
  description: 'size of the committed Action bundle dist/action.js',
  unit: 'bytes',
  target: { op: '<', value: 3 * 1024 * 1024 },
  measure: () => statSync(ACTION).size,
};

function firstLineMs(env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first = -1;
    const child = spawn(process.execPath, [ACTION], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.once('data', () => (first = performance.now() - started));
    child.on('close', (code) => (first >= 0 && code === 0 ? resolve(first) : reject(new Error(`the Action exited with ${code} before printing anything`))));
  });
}

export const actionColdStartMs: Figure = {
  name: 'action_cold_start_ms',
  description: 'node dist/action.js (mode validate, one manifest): spawn to its first line of output',
  unit: 'ms',
  target: { op: '<', value: 300 },
  async measure() {
    const dir = mkdtempSync(join(tmpdir(), 'baton-bench-action-'));
    try {
      mkdirSync(join(dir, 'ws/.agents/workflows'), { recursive: true });
      writeFileSync(join(dir, 'ws/.agents/workflows/one.yml'), 'steps:\n  - id: a\n    run: "true"\n');
      writeFileSync(join(dir, 'out'), '');
      writeFileSync(join(dir, 'summary'), '');
      const env = {
        PATH: process.env.PATH,
        GITHUB_ACTIONS: 'true',
        GITHUB_WORKSPACE: join(dir, 'ws'),
        GITHUB_OUTPUT: join(dir, 'out'),
        GITHUB_STEP_SUMMARY: join(dir, 'summary'),
        RUNNER_TEMP: dir,
        INPUT_MODE: 'validate',
        INPUT_PATH: '.agents/workflows',
      };
      await firstLineMs(env, join(dir, 'ws')); // warm the file cache
      const times: number[] = [];
      for (let i = 0; i < 9; i++) times.push(await firstLineMs(env, join(dir, 'ws')));
      return median(times);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
