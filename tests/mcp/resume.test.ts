// MCP's baton_resume on a local run an agent's turn limit stopped: the step goes on from the
// work it kept, with its limit raised within the workflow's cap; past the cap nothing runs.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, writeFile, type Repo } from '../local/helpers.ts';
import { connect, type Connected } from './client.ts';

let repo: Repo;
let mcp: Connected;

beforeAll(async () => {
  repo = makeRepo();
  writeFile(join(repo.dir, '.agents/workflows/build.yml'), 'name: build\nagents: { coder: { uses: claude-code, max-turns: 10 } }\nbudget:\n  raise-to: { turns: 30 }\nsteps:\n  - { id: implement, agent: coder, prompt: "Build it" }\n');
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'build workflow');
  const script = join(repo.dir, '.git', 'claude-script.json');
  writeFileSync(script, JSON.stringify([{ write: { 'half.txt': 'half\n' }, maxTurnsHit: true }, { write: { 'done.txt': 'done\n' } }]));
  mcp = await connect(repo.dir, { ...repo.env, FAKE_AGENT_SCRIPT: script, FAKE_AGENT_LOG: join(repo.dir, '.git', 'claude.log') });
});
afterAll(async () => {
  await mcp?.close();
  repo?.cleanup();
});

interface Run { runId: string; status: string; steps: { id: string; status: string }[] }

async function finished(runId: string): Promise<Run> {
  for (let i = 0; i < 40; i++) {
    const run = ((await mcp.call('baton_wait', { path: repo.dir, runId, timeoutSeconds: 10 })).structuredContent as { run: Run }).run;
    if (run.status !== 'running') return run;
  }
  throw new Error(`run ${runId} never finished`);
}

describe('baton mcp: baton_resume', { timeout: 90_000 }, () => {
  it('resumes the step a limit stopped from its kept work, within the cap', async () => {
    const started = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'build' });
    const runId = (started.structuredContent as { run: Run }).run.runId;
    expect((await finished(runId)).status).toBe('failed');

    const over = await mcp.call('baton_resume', { path: repo.dir, runId, turns: 50 });
    expect(JSON.stringify(over)).toContain("past the workflow's cap `budget.raise-to.turns` (30)");
    expect((await finished(runId)).status).toBe('failed');

    const resumed = await mcp.call('baton_resume', { path: repo.dir, runId, turns: 20 });
    expect(resumed.isError).toBeFalsy();
    expect((await finished(runId)).status).toBe('succeeded');
    const calls = repo.file('.git/claude.log').trim().split('\n').map((l) => JSON.parse(l) as { prompt: string; argv: string[] });
    expect(calls).toHaveLength(2);
    expect(calls[1]!.prompt).toContain('was stopped by its turn limit');
    expect(calls[1]!.argv.join(' ')).toContain('--max-turns 30');
    expect(repo.git('ls-tree', '--name-only', `baton/${runId}`).split('\n')).toEqual(expect.arrayContaining(['half.txt', 'done.txt']));
  });
});
