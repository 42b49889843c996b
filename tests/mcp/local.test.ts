// Every MCP tool against a local repository, through `baton mcp` over stdio.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, writeFile, type Repo } from '../local/helpers.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { WAIT_DEFAULT_SECONDS } from '../../src/mcp/server.ts';
import { connect, text, type Connected } from './client.ts';

let repo: Repo;
let mcp: Connected;
let hold: string;

beforeAll(async () => {
  // The DEMO_HOLD hook holds local-demo's agent (a repository workflow extending the library's).
  repo = makeRepo({}, { demoHooks: true });
  hold = join(repo.dir, '.git', 'demo.hold');
  // A repository workflow with an approve gate (none of the library's has one).
  writeFile(
    join(repo.dir, '.agents/workflows/gated.yml'),
    'name: gated\ndescription: Approve, then write a file.\nsteps:\n  - id: gate\n    approve: { message: Ready to write? }\n  - id: write\n    run: echo approved > APPROVED.txt\n',
  );
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', 'gated workflow');
  const script = join(repo.dir, '.git', 'claude-script.json');
  writeFileSync(
    script,
    JSON.stringify([
      { output: { summary: 'Crash on start.', labels: ['bug'], questions: ['Which version?'] } },
      { output: { labels: ['bug'], kind: 'bug', priority: 'low' } },
    ]),
  );
  mcp = await connect(repo.dir, { ...repo.env, FAKE_AGENT_SCRIPT: script, DEMO_HOLD: hold });
});
afterAll(async () => {
  await mcp?.close();
  repo?.cleanup();
});

type Run = { runId: string; status: string; waiting: { step: string; kind: string; questions: string[] }[]; steps: { id: string; status: string }[] };

async function waitUntil(runId: string, done: (r: Run) => boolean): Promise<Run> {
  for (let i = 0; i < 40; i++) {
    const r = await mcp.call('baton_wait', { path: repo.dir, runId, timeoutSeconds: 10 });
    const run = (r.structuredContent as { run: Run }).run;
    if (done(run)) return run;
  }
  throw new Error(`run ${runId} never got there`);
}

describe('baton mcp, local target', { timeout: 90_000 }, () => {
  it('lists its ten tools with schemas and annotations', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(Object.keys(byName).sort()).toEqual(
      ['baton_answer', 'baton_approve', 'baton_cancel', 'baton_get_run', 'baton_list_runs', 'baton_list_workflows', 'baton_resume', 'baton_start_run', 'baton_validate', 'baton_wait'].sort(),
    );
    expect(byName.baton_get_run!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.baton_cancel!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
    expect(byName.baton_start_run!.outputSchema).toBeDefined();
    expect(byName.baton_start_run!.inputSchema.properties).toHaveProperty('workflow');
  });

  it('lists and validates workflows', async () => {
    const list = await mcp.call('baton_list_workflows', { path: repo.dir });
    const names = (list.structuredContent as { workflows: { name: string; source: string }[] }).workflows.map((w) => `${w.name}:${w.source}`);
    expect(names).toContain('gated:repository');
    expect(names).toContain('local-demo:repository');
    expect(names).toContain('triage:library');
    const ok = await mcp.call('baton_validate', { path: repo.dir });
    expect(ok.structuredContent).toMatchObject({ valid: true });
    writeFile(join(repo.dir, 'broken.yml'), 'name: broken\nsteps:\n  - id: a\n    needs: [nope]\n    run: "true"\n');
    const bad = await mcp.call('baton_validate', { path: repo.dir, workflow: 'broken.yml' });
    expect(bad.structuredContent).toMatchObject({ valid: false });
    expect(text(bad)).toMatch(/broken\.yml:4:\d+: .*nope/);
  });

  it('starts a run, waits with progress, answers its question and sees it finish', async () => {
    const started = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'triage', inputs: { issue: 'It crashes on start' } });
    expect(started.isError).toBeFalsy();
    const runId = (started.structuredContent as { run: Run }).run.runId;
    expect(runId).toBe('triage-1');

    const run = await waitUntil(runId, (r) => r.waiting.length > 0);
    expect(run.waiting[0]).toMatchObject({ step: 'ask', kind: 'ask', questions: ['<untrusted-data source="ask.question[1]">Which version?</untrusted-data>'] });

    const wrong = await mcp.call('baton_approve', { path: repo.dir, runId });
    expect(wrong.isError).toBe(true);
    expect(text(wrong)).toContain('not waiting for an approval');

    const answered = await mcp.call('baton_answer', { path: repo.dir, runId, answers: ['2.0.1'] });
    expect(answered.isError).toBeFalsy();
    const final = await waitUntil(runId, (r) => r.status !== 'running');
    expect(final.status).toBe('succeeded');
    const got = await mcp.call('baton_get_run', { path: repo.dir, runId });
    expect((got.structuredContent as { run: { steps: { id: string; outputs: unknown }[] } }).run.steps.find((s) => s.id === 'classify')!.outputs).toMatchObject({ kind: '<untrusted-data source="classify.outputs">bug</untrusted-data>' });
  });

  it('approves a gated run, cancels another, lists runs, and explains mistakes', async () => {
    const started = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'gated' });
    const runId = (started.structuredContent as { run: Run }).run.runId;
    const waiting = await waitUntil(runId, (r) => r.waiting.length > 0);
    expect(waiting.waiting[0]).toMatchObject({ kind: 'approve', step: 'gate' });
    const approved = await mcp.call('baton_approve', { path: repo.dir, runId });
    expect(approved.isError).toBeFalsy();
    expect((await waitUntil(runId, (r) => r.status !== 'running')).status).toBe('succeeded');
    expect(repo.git('show', `baton/${runId}:APPROVED.txt`)).toBe('approved');

    // A run held inside its `note` worker: waiting reports progress, then cancel stops the worker.
    writeFile(hold, '');
    const second = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'local-demo' });
    const other = (second.structuredContent as { run: Run }).run.runId;
    await waitUntil(other, (r) => r.steps.find((s) => s.id === 'note')!.status === 'running');
    const progress: string[] = [];
    const held = await mcp.call('baton_wait', { path: repo.dir, runId: other, timeoutSeconds: 1 }, (p) => progress.push(p.message ?? ''));
    expect(held.structuredContent).toMatchObject({ changed: false, timedOut: true });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toContain(`${other}: running, running note`);
    const cancelled = await mcp.call('baton_cancel', { path: repo.dir, runId: other });
    expect((cancelled.structuredContent as { run: Run }).run.status).toBe('cancelled');
    // The server's log says so too, not "failed".
    expect(mcp.stderr()).toContain(`run ${other}: cancelled`);
    expect(mcp.stderr()).not.toContain(`run ${other}: failed`);
    rmSync(hold);

    const runs = await mcp.call('baton_list_runs', { path: repo.dir });
    expect((runs.structuredContent as { runs: Run[] }).runs.map((r) => `${r.runId}:${r.status}`)).toEqual(expect.arrayContaining([`${runId}:succeeded`, `${other}:cancelled`]));

    const missing = await mcp.call('baton_get_run', { path: repo.dir, runId: 'nope-9' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('no local run `nope-9`');
    const unknown = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('no workflow `nope`');
    const both = await mcp.call('baton_list_runs', { path: repo.dir, repository: 'a/b' });
    expect(text(both)).toContain('not both');
    expect(repo.git('status', '--porcelain')).toBe('?? broken.yml');
  });

  it('waits less than an MCP client\'s default request timeout unless asked, and says how to wait longer', async () => {
    const { tools } = await mcp.client.listTools();
    const wait = tools.find((t) => t.name === 'baton_wait')!;
    expect(wait.description).toContain('call baton_wait again');
    expect(wait.description).toContain(`Waits at most ${WAIT_DEFAULT_SECONDS} s by default`);
    expect(JSON.stringify(wait.inputSchema)).toContain('"maximum":600');
    // The default wait stays under the SDK client's default request timeout, with room for the
    // answer to travel; the timed-out answer itself is driven with a short timeout below, the
    // same code path as the default's (waiting the real 45 s would prove nothing more).
    expect(WAIT_DEFAULT_SECONDS * 1000).toBeLessThanOrEqual(DEFAULT_REQUEST_TIMEOUT_MSEC - 10_000);

    writeFile(hold, '');
    const started = await mcp.call('baton_start_run', { path: repo.dir, workflow: 'local-demo' });
    const runId = (started.structuredContent as { run: Run }).run.runId;
    await waitUntil(runId, (r) => r.steps.find((s) => s.id === 'note')!.status === 'running');
    const r = (await mcp.client.callTool({ name: 'baton_wait', arguments: { path: repo.dir, runId, timeoutSeconds: 1 } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ changed: false, timedOut: true });
    expect(text(r)).toMatch(/call baton_wait again.*timeoutSeconds/s);
    await mcp.call('baton_cancel', { path: repo.dir, runId });
    rmSync(hold);
  });
});
