// The `on:` baton init writes, as GitHub reads it: the emulator's Actions runner (GitHub's
// trigger rules, tests/emulator/actions/triggers.ts) starts baton.yml for a pull request
// opened when, and only when, a manifest starts on it. The `on:` is the generated file's;
// the jobs are a probe (the run job itself is exercised by tests/actions-only).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { onBlockOf } from '../../src/init/on-block.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';
import { withActions } from '../emulator/actions/index.ts';
import type { ActionsRunner } from '../emulator/actions/runner.ts';

let emu: Emulator;
let runner: ActionsRunner;
const dirs: string[] = [];

beforeAll(async () => {
  const actions = withActions({ triggerOnWebhooks: true });
  emu = await startEmulator({ plugins: [actions.plugin] });
  runner = actions.runner;
});

afterAll(async () => {
  await emu?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const REVIEW = `name: review-pr
on:
  pull_request: { types: [opened] }
  schedule: [{ cron: '0 6 * * 1' }]
agents:
  reviewer: { uses: claude-code }
steps:
  - id: review
    agent: reviewer
    writes: false
    prompt: Review the pull request.
`;

/** baton.yml as `baton init --mode actions` writes it in a repository with these manifests. */
async function generated(manifests: Record<string, string>): Promise<string> {
  const d = mkdtempSync(join(tmpdir(), 'baton-on-'));
  dirs.push(d);
  mkdirSync(join(d, '.agents/workflows'), { recursive: true });
  for (const [name, text] of Object.entries(manifests)) writeFileSync(join(d, '.agents/workflows', name), text);
  const code = await main(['init', '--mode', 'actions', '--action-ref', 'acme/baton@v1'], { out: () => {}, err: () => {}, cwd: d });
  expect(code).toBe(0);
  return readFileSync(join(d, '.github/workflows/baton.yml'), 'utf8');
}

/** The generated `on:` with a job that prints what started it. */
const probe = (batonYml: string): string =>
  ['name: baton', ...onBlockOf(batonYml), 'jobs:', '  show:', '    runs-on: ubuntu-latest', '    steps:', '      - run: echo "event=$GITHUB_EVENT_NAME action=${{ github.event.action }} schedule=${{ github.event.schedule }}"', ''].join('\n');

const as = (login: string): Octokit => new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken(login) });

async function openPull(name: string, batonYml: string): Promise<{ repo: string; runs: () => { event: string; path: string; id: number }[] }> {
  await emu.createRepo('acme', name, { 'README.md': `# ${name}\n`, '.github/workflows/baton.yml': probe(batonYml) });
  emu.store.setRole('acme', name, 'alice', 'admin');
  const o = { owner: 'acme', repo: name };
  const alice = as('alice');
  const head = (await alice.rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
  await alice.rest.git.createRef({ ...o, ref: 'refs/heads/feature', sha: head });
  await alice.rest.repos.createOrUpdateFileContents({ ...o, path: 'f.txt', message: 'F', content: Buffer.from('f\n').toString('base64'), branch: 'feature' });
  await alice.rest.pulls.create({ ...o, head: 'feature', base: 'main', title: 'A change' });
  await runner.idle();
  return { repo: name, runs: () => [...runner.store.runs.values()].filter((r) => r.repo === name) };
}

describe("the on: baton init writes, under GitHub's trigger rules", () => {
  it('starts baton.yml for pull_request opened when a manifest starts on it', async () => {
    const r = await openPull('with-review', await generated({ 'review-pr.yml': REVIEW }));
    const started = r.runs().filter((x) => x.event === 'pull_request');
    expect(started).toHaveLength(1);
    expect(runner.logs(started[0]!.id)).toContain('event=pull_request action=opened');
    // The manifest's cron fires baton.yml too (and the sweep's).
    const scheduled = await runner.schedule('acme', r.repo);
    await runner.idle();
    const fired = (cron: string) => scheduled.filter((x) => runner.logs(x.id).split('\n').some((l) => l.endsWith(`schedule=${cron}`)));
    expect(scheduled).toHaveLength(2);
    expect(fired('*/5 * * * *')).toHaveLength(1);
    expect(fired('0 6 * * 1')).toHaveLength(1);
  }, 60_000);

  it('does not start it for pull_request opened when no manifest starts on it', async () => {
    const r = await openPull('labels-only', await generated({}));
    expect(r.runs().filter((x) => x.event === 'pull_request')).toEqual([]);
    const scheduled = await runner.schedule('acme', r.repo);
    await runner.idle();
    expect(scheduled).toHaveLength(1);
  }, 60_000);
});
