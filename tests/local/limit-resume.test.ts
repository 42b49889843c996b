// `baton resume <run> --turns +N` on a local run an agent's turn limit stopped: its partial
// work is kept on the step branch (read back), the run says so, a raise past the workflow's cap
// is refused naming it, a bad amount is a usage error, and the resume continues from the
// checkpoint — the prompt says so — to the end.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { baton, makeRepo, writeFile, type Repo } from './helpers.ts';

let repo: Repo;
afterEach(() => repo?.cleanup());

const BUILD = `name: build
agents: { coder: { uses: claude-code, max-turns: 10 } }
budget:
  raise-to: { turns: 30 }
steps:
  - { id: implement, agent: coder, prompt: "Build it" }
`;

function buildRepo(): { repo: Repo; env: Record<string, string> } {
  const r = makeRepo();
  writeFile(join(r.dir, '.agents/workflows/build.yml'), BUILD);
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'build workflow');
  const script = join(r.dir, '.git', 'claude-script.json');
  writeFileSync(script, JSON.stringify([{ write: { 'half.txt': 'half done\n' }, maxTurnsHit: true }, { write: { 'done.txt': 'done\n' } }]));
  return { repo: r, env: { FAKE_AGENT_SCRIPT: script, FAKE_AGENT_LOG: join(r.dir, '.git', 'claude.log') } };
}

const prompts = (r: Repo): string[] => r.file('.git/claude.log').trim().split('\n').map((l) => (JSON.parse(l) as { prompt: string }).prompt);

describe('baton resume with a raised limit', { timeout: 90_000 }, () => {
  it('continues a step its turn limit stopped from the kept work, within the workflow\'s cap', async () => {
    const made = buildRepo();
    repo = made.repo;
    const first = await baton(repo, ['run', 'build', '--local'], made.env);
    expect(first.code).toBe(1);
    const kept = repo.git('rev-parse', 'baton/steps/build-1/implement');
    expect(repo.git('show', '--name-only', '--format=', kept)).toBe('half.txt');
    const status = await baton(repo, ['status', 'build-1']);
    expect(status.stdout).toContain(`stopped by its turn limit; kept 1 file (\`half.txt\`) in commit \`${kept.slice(0, 7)}\``);

    const bad = await baton(repo, ['resume', 'build-1', '--turns', '+abc'], made.env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('`--turns` takes an amount to add, like `--turns +20`; `+abc` is not one');

    const over = await baton(repo, ['resume', 'build-1', '--turns', '+50'], made.env);
    expect(over.stdout + over.stderr).toContain('past the workflow\'s cap `budget.raise-to.turns` (30)');
    expect(prompts(repo)).toHaveLength(1);

    const resumed = await baton(repo, ['resume', 'build-1', '--turns', '+20'], made.env);
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const calls = prompts(repo);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toContain('was stopped by its turn limit');
    const log = repo.file('.git/claude.log').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[] });
    expect(log[1]!.argv.join(' ')).toContain('--max-turns 30');
    const tree = repo.git('ls-tree', '--name-only', 'baton/build-1').split('\n');
    expect(tree).toEqual(expect.arrayContaining(['half.txt', 'done.txt']));
  });
});
