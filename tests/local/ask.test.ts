// A question of the bundled triage workflow, answered with `baton answer` after the
// non-interactive run stopped with exit 3.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, events, makeRepo, type Repo } from './helpers.ts';

let repo: Repo;
afterEach(() => repo?.cleanup());

describe('questions in a local run', { timeout: 90_000 }, () => {
  it('exits 3 with the questions, then `baton answer` continues the run', async () => {
    repo = makeRepo();
    const script = join(repo.dir, '.git', 'claude-script.json');
    const log = join(repo.dir, '.git', 'claude.log');
    writeFileSync(
      script,
      JSON.stringify([
        { output: { summary: 'The app crashes on start.', labels: ['bug'], questions: ['Which version do you run?'] } },
        { output: { labels: ['bug'], kind: 'bug', priority: 'high' } },
      ]),
    );
    const env = { FAKE_AGENT_SCRIPT: script, FAKE_AGENT_LOG: log };
    const first = await baton(repo, ['run', 'triage', '--local', '--input', 'issue=Crash on start\nIt crashes.'], env);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain('run triage-1 is waiting for input.');
    expect(first.stdout).toContain('1. Which version do you run?');
    expect(first.stdout).toContain('baton answer triage-1 "<answer 1>"');

    const status = await baton(repo, ['status', 'triage-1', '--json']);
    expect(JSON.parse(status.stdout).waiting).toEqual([{ step: 'ask', kind: 'ask', questions: ['Which version do you run?'], open: [0], message: null }]);

    expect((await baton(repo, ['list'])).stdout).toMatch(/^triage-1 {2}waiting for answers \(ask\) {2}/m);

    const wrong = await baton(repo, ['answer', 'triage-1', 'a', 'b'], env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('has 1 question(s)');

    const second = await baton(repo, ['answer', 'triage-1', 'v2.3.1'], env);
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    const evs = events(repo, 'triage-1');
    expect(evs.find((e) => e.type === 'questions.answered')).toMatchObject({ step: 'ask', answers: ['v2.3.1'] });
    const state = JSON.parse(repo.file('.baton/runs/triage-1/state.json'));
    expect(state.steps.find((s: { id: string }) => s.id === 'classify').outputs).toEqual({ labels: ['bug'], kind: 'bug', priority: 'high' });
    // The answer reached the classifier's prompt; the reader ran once.
    const calls = repo.file('.git/claude.log').trim().split('\n').map((l) => JSON.parse(l) as { prompt: string });
    expect(calls).toHaveLength(2);
    expect(calls[0]!.prompt).toContain('Crash on start');
    expect(calls[1]!.prompt).toContain('v2.3.1');
  });

  it('refuses unknown workflows and inputs with exit 2', async () => {
    repo = makeRepo();
    const r = await baton(repo, ['run', 'nope', '--local']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no workflow `nope`');
    const bad = await baton(repo, ['run', 'local-demo', '--local', '--input', 'colour=red']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown input `colour`');
    const noLocal = await baton(repo, ['run', 'local-demo']);
    expect(noLocal.code).toBe(2);
  });
});
