// Attack: the agent leaves a process behind that escapes its process group (a new session,
// as daemons do), to outlive the agent step and read a later step's token from
// /proc/<pid>/environ. The test starts such a daemon from the agent, checks it really left
// the agent's group and session, and asserts it is dead once the worker returns.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWorker } from '../../src/agents/worker.ts';
import { alive, fakes, makeRepo, makeTask } from '../agents/helpers.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

/** Session and process group of a process, from /proc/<pid>/stat. */
function ids(stat: string): { pgrp: number; session: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pgrp: Number(fields[2]), session: Number(fields[3]) };
}

describe('what the agent leaves running', () => {
  it('a daemon in a session of its own does not outlive the worker', async () => {
    const { dir, base } = makeRepo();
    cleanup.push(dir);
    const f = fakes();
    cleanup.push(f.dir);
    const info = join(f.dir, 'daemon.json');
    // The daemon writes its pid and /proc/self/stat, then waits (for the upload step's token).
    // Written aside and renamed: the agent waits for the file, which must never be seen half written.
    const daemon = `const fs = require('fs'); fs.writeFileSync(${JSON.stringify(info + '.tmp')}, JSON.stringify({ pid: process.pid, stat: fs.readFileSync('/proc/self/stat', 'utf8') })); fs.renameSync(${JSON.stringify(info + '.tmp')}, ${JSON.stringify(info)}); setInterval(() => {}, 1000);`;
    const agent = [
      `const { spawn } = require('child_process'); const fs = require('fs');`,
      `spawn(process.execPath, ['-e', ${JSON.stringify(daemon)}], { detached: true, stdio: 'ignore' }).unref();`,
      `const wait = () => fs.existsSync(${JSON.stringify(info)}) ? process.stdout.write(JSON.stringify({ agent: fs.readFileSync('/proc/self/stat', 'utf8') })) : setTimeout(wait, 20); wait();`,
    ].join('\n');
    const task = makeTask({ base, outputsSchema: null, backend: { uses: 'command', run: [process.execPath, '-e', agent], env: {} } });
    const run = await runWorker(task, { cwd: dir, env: f.env });
    expect(run.result.status).toBe('succeeded');

    const seen = JSON.parse(readFileSync(info, 'utf8')) as { pid: number; stat: string };
    const agentStat = (JSON.parse(run.transcript.split('--- stdout ---\n')[1]!.split('\n')[0]!) as { agent: string }).agent;
    // Delivered: the daemon had left the agent's process group and session.
    expect(ids(seen.stat).pgrp).not.toBe(ids(agentStat).pgrp);
    expect(ids(seen.stat).session).not.toBe(ids(agentStat).session);
    // SIGKILL is sent before the worker returns; its delivery takes the kernel a moment.
    for (let i = 0; i < 100 && alive(seen.pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(seen.pid)).toBe(false);
  });
});
