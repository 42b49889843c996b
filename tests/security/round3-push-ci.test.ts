// Round 3, attack 1's wider class: the repository's push CI runs on the branches baton makes with
// an App token, so agent-written code would run there with the repository's secrets. `baton
// validate` and `baton doctor` (and the Action's validate mode, the same function) name each such
// workflow at its `push` key, with the fix; a workflow that ignores baton's branches, or one only
// for tags or other branches, is not named; nor is anything when baton acts with GITHUB_TOKEN.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { doctorCommand } from '../../src/cli/commands/doctor.ts';
import { validateCommand } from '../../src/cli/commands/validate.ts';
import { pushCiWarnings } from '../../src/manifest/warn-push-ci.ts';
import { READING_VALUES } from '../emulator/readings.ts';
import { startHarness, type Harness } from '../app/harness.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const job = 'jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: ./test.sh\n';
const CI = {
  '.github/workflows/ci.yml': `name: ci\non: [push, pull_request]\n${job}`,
  '.github/workflows/lint.yml': `name: lint\non:\n  pull_request:\n  push:\n    branches: ['**']\n${job}`,
  '.github/workflows/deploy.yml': `name: deploy\non:\n  push:\n    branches-ignore: [gh-pages]\n${job}`,
  // Not named: they never run on baton/… pushes.
  '.github/workflows/safe.yml': `name: safe\non:\n  push:\n    branches-ignore: ['baton/**']\n${job}`,
  '.github/workflows/main-only.yml': `name: main only\non:\n  push:\n    branches: [main, 'release/**']\n${job}`,
  '.github/workflows/tags.yml': `name: tags\non:\n  push:\n    tags: ['v*']\n${job}`,
  '.github/workflows/prs.yml': `name: prs\non: pull_request\n${job}`,
  '.github/workflows/baton-worker.yml': `name: baton worker\non: workflow_dispatch\n${job}`,
};

describe('push CI that would run on baton\'s branches', () => {
  it('names each workflow whose on.push takes baton/… at its push key, with the fix and why', () => {
    const warnings = pushCiWarnings(CI);
    expect(warnings.map((w) => [w.file, w.line])).toEqual([
      ['.github/workflows/ci.yml', 2],
      ['.github/workflows/deploy.yml', 3],
      ['.github/workflows/lint.yml', 4],
    ]);
    for (const w of warnings) {
      expect(w.message).toContain("add `branches-ignore: ['baton/**']` to its `on.push`");
      expect(w.message).toContain("with the repository's secrets");
    }
  });

  it('says nothing in Actions-only mode with GITHUB_TOKEN (its pushes start no workflow), and names them with an App token', () => {
    const baton = 'name: baton\non: issues\njobs:\n  run:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: baton-dev/baton@v1\n';
    expect(pushCiWarnings({ ...CI, '.github/workflows/baton.yml': baton })).toEqual([]);
    const withApp = baton.replace('    steps:\n', '    steps:\n      - uses: actions/create-github-app-token@v2\n');
    expect(pushCiWarnings({ ...CI, '.github/workflows/baton.yml': withApp })).toHaveLength(3);
  });

  it('baton validate and baton doctor report them with file:line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-push-ci-'));
    dirs.push(dir);
    for (const [path, text] of Object.entries({ ...CI, '.agents/workflows/triage.yml': 'name: triage\nsteps:\n  - id: a\n    agent: x\n    prompt: hi\nagents: { x: { uses: claude-code } }\n' })) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const out: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => out.push(t), cwd: dir };
    validateCommand([], io);
    const validated = out.join('\n');
    expect(validated).toContain('.github/workflows/ci.yml:2:');
    expect(validated).toContain('.github/workflows/lint.yml:4:');
    expect(validated).not.toContain('safe.yml');

    out.length = 0;
    await doctorCommand(['--json'], io, { PATH: '' });
    const report = JSON.parse(out.join('\n')) as { warnings: string[] };
    expect(report.warnings.filter((w) => w.includes('branches-ignore')).map((w) => /\((\.github\/workflows\/[^:]+:\d+):\d+\)$/.exec(w)?.[1])).toEqual([
      '.github/workflows/ci.yml:2',
      '.github/workflows/deploy.yml:3',
      '.github/workflows/lint.yml:4',
    ]);
  });
});

const QUICK = `name: quick
on: { labels: ["baton:quick"] }
agents:
  coder: { uses: claude-code }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}"
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('with the fix the doctor names, push CI runs on none of baton\'s refs', () => {
  // Whether a push to a custom ref (baton's claims under refs/baton/, which may keep an agent's
  // commit) starts push workflows is not documented (readings.ts `customRefPushRuns`): under
  // `fires`, GitHub would filter it by its name after refs/ (`baton/leases/…`), which
  // `branches-ignore: ['baton/**']` ignores as it does baton's branches.
  it.each(READING_VALUES.customRefPushRuns)('an agent\'s run with CI on push, branches-ignore baton/** (push runs for custom refs: %s)', async (customRefPushRuns) => {
    const ci = `name: ci\non:\n  push:\n    branches-ignore: ['baton/**']\n${job}`;
    expect(pushCiWarnings({ '.github/workflows/ci.yml': ci })).toEqual([]);
    h = await startHarness({ files: { '.agents/workflows/quick.yml': QUICK, '.github/workflows/ci.yml': ci }, agents: { implement: [{ write: { 'src/fix.txt': 'agent code\n' } }] }, readings: { customRefPushRuns }, triggerOnWebhooks: true });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Widgets break', body: 'Please fix.' })).data;
    await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: issue.number, labels: ['baton:quick'] });
    await h.settle();
    expect(await h.record(issue.number)).toContain(`run \`quick-${issue.number}-1\` — succeeded`);
    const pushes = [...h.runner.store.runs.values()].filter((r) => r.path === '.github/workflows/ci.yml' && r.event === 'push');
    expect(pushes.filter((r) => r.ref !== 'refs/heads/main').map((r) => r.ref)).toEqual([]);
  }, 120_000);
});
