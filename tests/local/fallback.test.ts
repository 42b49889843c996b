// End to end on the local host: the step's agent cannot authenticate (its key is not set), so
// after two such failures its attempts go to the fallback agent, which completes the run; the
// local record says so.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, events, makeRepo, writeFile, type Repo } from './helpers.ts';

let repo: Repo;
afterEach(() => repo?.cleanup());

const WORKFLOW = `name: fallback-demo
agents:
  coder: { uses: claude-code, fallback: backup }
  backup: { uses: codex }
steps:
  - id: change
    agent: coder
    prompt: Write the file.
`;

describe('fallback agent on the local host', { timeout: 90_000 }, () => {
  it('runs the step on the fallback after the agent fails twice on authentication, and the record says why', async () => {
    repo = makeRepo({ ANTHROPIC_API_KEY: '' });
    writeFile(join(repo.dir, '.agents/workflows/fallback-demo.yml'), WORKFLOW);
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'workflow');
    const r = await baton(repo, ['run', 'fallback-demo', '--local']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/✓ change {2}succeeded {2}\S+ {2}attempt 3 on backup \(fallback\)/);

    const evs = events(repo, 'fallback-demo-1');
    const failures = evs.filter((e) => e.type === 'worker.failed');
    expect(failures.map((e) => [e.attempt, e.infrastructure])).toEqual([
      [1, 'authentication'],
      [2, 'authentication'],
    ]);
    expect(String(failures[0]!.error)).toContain('claude-code needs credentials');
    expect(evs.filter((e) => e.type === 'worker.finished').map((e) => e.attempt)).toEqual([3]);
    // The fallback (the fake codex) made the change, and the run succeeded with no retries given.
    expect(repo.git('show', 'baton/fallback-demo-1:fake-codex.txt')).toBe('changed by codex');
    const record = repo.file('.baton/runs/fallback-demo-1/record.md');
    expect(record).toContain('succeeded');
    expect(record).toMatch(/- `coder` \(claude-code\) failed twice on authentication; it was set aside for `backup` \(codex\) until \d\d:\d\d UTC/);
    expect(record).toMatch(/\| change \| done \| 3 \(backup, fallback\) \|/);
  });
});
