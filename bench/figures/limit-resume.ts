// limit_work_kept_pct: of seeded runs whose agent a turn, time or cost limit stopped mid-edit,
// the share whose partial work was kept (the step branch holds exactly what the agent wrote,
// read back from git, and `baton status` says so) AND that one `baton resume --turns/--minutes/
// --budget` then finished from that checkpoint (the run branch holds the first attempt's files
// and the second's). Measured on local runs through the `baton` CLI with the fake agent CLIs,
// the same worker, keeping and engine as everywhere; nothing here is assumed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baton, makeRepo, writeFile, type Repo } from '../../tests/local/helpers.ts';
import type { Figure } from './figure.ts';

type Limit = 'turns' | 'time' | 'cost';

/** A small deterministic generator: each seed writes its own files. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (s * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
}

interface Case {
  limit: Limit;
  seed: number;
}

const CASES: Case[] = [
  { limit: 'turns', seed: 1 },
  { limit: 'turns', seed: 2 },
  { limit: 'cost', seed: 3 },
  { limit: 'cost', seed: 4 },
  // A time limit takes one real minute (`timeout-minutes` is whole minutes): one case.
  { limit: 'time', seed: 5 },
];

const WORKFLOW: Record<Limit, string> = {
  turns: 'agents: { coder: { uses: claude-code, max-turns: 10 } }\nbudget:\n  raise-to: { turns: 30 }\nsteps:\n  - { id: implement, agent: coder, prompt: "Build it" }\n',
  cost: 'agents: { coder: { uses: claude-code } }\nbudget:\n  max-cost-usd: 0.02\n  raise-to: { cost-usd: 1 }\nsteps:\n  - { id: implement, agent: coder, prompt: "Build it", retries: 1 }\n',
  time: 'agents: { coder: { uses: claude-code, timeout-minutes: 1 } }\nbudget:\n  raise-to: { minutes: 5 }\nsteps:\n  - { id: implement, agent: coder, prompt: "Build it" }\n',
};

const STOP: Record<Limit, Record<string, unknown>> = { turns: { maxTurnsHit: true }, cost: { maxTurnsHit: true, usage: { costUsd: 0.05 } }, time: { hang: true } };
const RAISE: Record<Limit, string[]> = { turns: ['--turns', '+20'], cost: ['--budget', '+0.5'], time: ['--minutes', '+2'] };

/** One seeded case: 1 when the work was kept and the resume finished from it, else 0. */
async function keptAndFinished(c: Case): Promise<number> {
  const next = rng(c.seed);
  const files: Record<string, string> = {};
  for (let i = 0, n = 1 + Math.floor(next() * 3); i < n; i++) files[`src/part-${c.seed}-${i}.txt`] = `partial ${next().toString(36)}\n`;
  let repo: Repo | undefined;
  try {
    repo = makeRepo();
    writeFile(join(repo.dir, '.agents/workflows/build.yml'), `name: build\n${WORKFLOW[c.limit]}`);
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'build workflow');
    const script = join(repo.dir, '.git', 'claude-script.json');
    writeFileSync(script, JSON.stringify([{ write: files, ...STOP[c.limit] }, { write: { 'done.txt': 'done\n' } }]));
    const env = { FAKE_AGENT_SCRIPT: script };
    const first = await baton(repo, ['run', 'build', '--local'], env);
    if (first.code === 0) return 0;
    // Kept: the step branch holds what the agent wrote, and the run says so.
    const kept = repo.git('ls-tree', '-r', '--name-only', 'baton/steps/build-1/implement').split('\n');
    if (!Object.keys(files).every((f) => kept.includes(f))) return 0;
    const status = await baton(repo, ['status', 'build-1']);
    if (!status.stdout.includes(`kept ${Object.keys(files).length} file`)) return 0;
    // Resumed: one command, and the step finishes with both attempts' work.
    const resumed = await baton(repo, ['resume', 'build-1', ...RAISE[c.limit]], env);
    if (resumed.code !== 0) return 0;
    const tree = repo.git('ls-tree', '-r', '--name-only', 'baton/build-1').split('\n');
    return [...Object.keys(files), 'done.txt'].every((f) => tree.includes(f)) ? 1 : 0;
  } finally {
    repo?.cleanup();
  }
}

export const limitWorkKeptPct: Figure = {
  name: 'limit_work_kept_pct',
  description: `runs an agent's turn, time or cost limit stopped (${CASES.length} seeded cases) whose work was kept, said, and finished by one resume`,
  unit: '%',
  target: { op: '>=', value: 100 },
  async measure() {
    let ok = 0;
    for (const c of CASES) ok += await keptAndFinished(c);
    return (100 * ok) / CASES.length;
  },
};
