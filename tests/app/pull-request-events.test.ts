// Runs that pull request and issue events start (`on.pull_request`, `on.issues`), end to end:
// the emulator sends what GitHub sends (`pull_request.opened` when a pull request is opened,
// `synchronize` with `before`/`after` when its branch is pushed to, `issues.opened`), and the
// App starts, filters, refuses and supersedes runs as docs/app.md "Runs from events" says.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appRequests, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CHECK = `name: check
on:
  pull_request:
    branches: [main]
agents: { coder: { uses: claude-code } }
steps:
  - { id: look, agent: coder, writes: false, prompt: "look at the change" }
`;

const titles = (h: Harness) => [...h.runner.store.runs.values()].map((r) => r.displayTitle).sort();
const records = async (h: Harness, n: number) => (await h.comments(n)).filter((b) => b.includes('baton:record'));
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The commits of a run's branch, newest first (the branch stays after the run: it is deleted with its pull request). */
async function runBranchCommits(h: Harness, runId: string): Promise<string[]> {
  const head = (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
  return execFileSync('git', ['--git-dir', h.emu.gitDir('acme', 'widgets'), 'rev-list', head], { encoding: 'utf8' }).split('\n').filter(Boolean);
}

/** `login` makes branch `branch` off `from` (or main) with `files` committed on it: pushes, as a person does. */
async function pushBranch(h: Harness, login: string, branch: string, files: Record<string, string>, from = 'main'): Promise<string> {
  const who = h.as(login);
  const base = (await who.rest.git.getRef({ ...o, ref: `heads/${from}` })).data.object.sha;
  await who.rest.git.createRef({ ...o, ref: `refs/heads/${branch}`, sha: base });
  return pushTo(h, login, branch, files);
}

/** One commit per file on `branch` through the contents API (a push: GitHub sends `push`, and `synchronize` for its pull requests). */
async function pushTo(h: Harness, login: string, branch: string, files: Record<string, string>): Promise<string> {
  let sha = '';
  for (const [path, content] of Object.entries(files)) {
    sha = (await h.as(login).rest.repos.createOrUpdateFileContents({ ...o, path, branch, message: `Change ${path}`, content: b64(content) })).data.commit.sha!;
  }
  return sha;
}

async function openPull(h: Harness, login: string, head: string, opts: { base?: string; draft?: boolean; title?: string } = {}): Promise<number> {
  return (await h.as(login).rest.pulls.create({ ...o, head, base: opts.base ?? 'main', title: opts.title ?? `Change ${head}`, body: 'Please look.', draft: opts.draft ?? false })).data.number;
}

describe('app: runs from pull request events', () => {
  it('a pull request a maintainer opens starts one run bound to it, from its head; the same delivery again starts nothing more', async () => {
    h = await startHarness({ files: { '.agents/workflows/check.yml': CHECK } });
    h.emu.faults.addWebhook({ kind: 'duplicate', event: 'pull_request.opened', times: Infinity });
    const head = await pushBranch(h, 'alice', 'feature', { 'feature.txt': 'new\n' });
    const n = await openPull(h, 'alice', 'feature');
    await h.settle();

    expect(h.emu.faults.injected.map((f) => f.target)).toContain('pull_request.opened');
    const rs = await records(h, n);
    expect(rs).toHaveLength(1);
    expect(rs[0]).toContain(`run \`check-${n}-1\` — succeeded`);
    expect(titles(h)).toEqual([`baton check-${n}-1 look #1`]);
    // The run branch was made from the pull request's head: the PR's commit is in it.
    expect(await runBranchCommits(h, `check-${n}-1`)).toContain(head);
    h.emu.assertNoViolations();
  }, 60_000);

  it('a push to the pull request cancels the run on the old head (its status comment says why) and starts one on the new head', async () => {
    h = await startHarness({ files: { '.agents/workflows/check.yml': CHECK }, agents: { look: [{ hang: true }, { reply: 'fine' }] } });
    await pushBranch(h, 'alice', 'feature', { 'feature.txt': 'new\n' });
    const n = await openPull(h, 'alice', 'feature');
    await h.waitFor('the first run at work', () => h!.agentCalls().length === 1);
    await h.emu.webhooks.idle();
    await h.app.runs.idle();

    const after = await pushTo(h, 'alice', 'feature', { 'more.txt': 'more\n' });
    await h.settle();

    const sync = h.emu.webhooks.deliveries.find((d) => d.event === 'pull_request' && d.action === 'synchronize');
    expect((sync?.payload as { after?: string } | undefined)?.after).toBe(after);
    const rs = await records(h, n);
    const first = rs.find((b) => b.includes(`run \`check-${n}-1\``))!;
    const second = rs.find((b) => b.includes(`run \`check-${n}-2\``))!;
    expect(first).toContain('— cancelled');
    expect(first).toContain(`**Cancelled:** superseded by \`check-${n}-2\` for head ${after.slice(0, 7)}`);
    expect(second).toContain('— succeeded');
    const runs = [...h.runner.store.runs.values()].map((r) => [r.displayTitle, r.conclusion]).sort();
    expect(runs).toEqual([
      [`baton check-${n}-1 look #1`, 'cancelled'],
      [`baton check-${n}-2 look #1`, 'success'],
    ]);
    expect(await runBranchCommits(h, `check-${n}-2`)).toContain(after);
    expect(await runBranchCommits(h, `check-${n}-1`)).not.toContain(after);
    h.emu.assertNoViolations();
  }, 90_000);

  it('branches and paths filters (GitHub\'s), drafts (baton\'s): only the workflows whose filters pass start', async () => {
    const SRC = `name: src
on:
  pull_request:
    paths: ['src/**', '!src/**/*.md']
steps:
  - { id: build, run: echo built > built.txt }
`;
    const MAIN = `name: main-only
on:
  pull_request:
    branches: [main]
steps:
  - { id: note, run: echo noted > noted.txt }
`;
    h = await startHarness({ files: { '.agents/workflows/src.yml': SRC, '.agents/workflows/main-only.yml': MAIN } });
    await pushBranch(h, 'alice', 'dev', { 'dev.txt': 'dev\n' });
    await pushBranch(h, 'alice', 'docs-only', { 'docs/a.md': 'a\n', 'src/notes.md': 'n\n' });
    const docs = await openPull(h, 'alice', 'docs-only');
    await pushBranch(h, 'alice', 'code', { 'src/x.ts': 'x\n' });
    const code = await openPull(h, 'alice', 'code');
    await pushBranch(h, 'alice', 'code-on-dev', { 'src/y.ts': 'y\n' }, 'dev');
    const onDev = await openPull(h, 'alice', 'code-on-dev', { base: 'dev' });
    await pushBranch(h, 'alice', 'wip', { 'src/z.ts': 'z\n' });
    const draft = await openPull(h, 'alice', 'wip', { draft: true });
    await h.settle();

    expect(titles(h)).toEqual([`baton main-only-${code}-1 note #1`, `baton main-only-${docs}-1 note #1`, `baton src-${code}-1 build #1`, `baton src-${onDev}-1 build #1`].sort());
    expect(await records(h, draft)).toEqual([]);
    h.emu.assertNoViolations();
  }, 90_000);

  it('a pull request by someone `authors` does not admit starts nothing and writes nothing, nor does a maintainer\'s push to it', async () => {
    const STRICT = CHECK.replace('branches: [main]', 'authors: [maintain]');
    h = await startHarness({ files: { '.agents/workflows/check.yml': STRICT }, roles: { alice: 'admin', bob: 'write' } });
    await pushBranch(h, 'bob', 'bobs', { 'bob.txt': 'b\n' });
    const before = appRequests(h.emu).length;
    const n = await openPull(h, 'bob', 'bobs');
    await h.settle();
    // The maintainer pushes to bob's pull request: the sender is admitted, bob's words and code are not.
    await pushTo(h, 'alice', 'bobs', { 'fix.txt': 'f\n' });
    await h.settle();

    expect(h.emu.webhooks.deliveries.filter((d) => d.event === 'pull_request').map((d) => d.action)).toEqual(expect.arrayContaining(['opened', 'synchronize']));
    // Repository writes (an installation token being made is none).
    const writes = appRequests(h.emu).slice(before).filter((r) => r.method !== 'GET' && r.route.includes(' /repos/'));
    expect(writes.map((r) => r.route)).toEqual([]);
    expect(await h.comments(n)).toEqual([]);
    expect(titles(h)).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);

  it('a baton run\'s pull request (a `baton/` head branch) starts nothing', async () => {
    h = await startHarness({ files: { '.agents/workflows/check.yml': CHECK } });
    await pushBranch(h, 'alice', 'baton/fix-issue-3-1', { 'fix.txt': 'f\n' });
    const n = await openPull(h, 'alice', 'baton/fix-issue-3-1');
    await h.settle();
    expect(titles(h)).toEqual([]);
    expect(await h.comments(n)).toEqual([]);
    h.emu.assertNoViolations();
  }, 60_000);
});

describe('app: runs from issue events', () => {
  it('an opened issue starts one run bound to it, from the default branch', async () => {
    const TRIAGE = `name: triage
on:
  issues: {}
steps:
  - { id: label, run: echo triaged > triaged.txt }
`;
    h = await startHarness({ files: { '.agents/workflows/triage.yml': TRIAGE } });
    h.emu.faults.addWebhook({ kind: 'duplicate', event: 'issues.opened', times: Infinity });
    const n = (await h.as('alice').rest.issues.create({ ...o, title: 'It breaks', body: 'When I click.' })).data.number;
    await h.settle();
    const rs = await records(h, n);
    expect(rs).toHaveLength(1);
    expect(rs[0]).toContain(`run \`triage-${n}-1\` — succeeded`);
    expect(titles(h)).toEqual([`baton triage-${n}-1 label #1`]);
    h.emu.assertNoViolations();
  }, 60_000);
});

const FIXUP = `name: fixup
on:
  pull_request:
    types: [opened]
    push-to-head: true
agents: { coder: { uses: claude-code } }
steps:
  - { id: fix, agent: coder, prompt: "fix the change" }
  - id: pr
    pull-request: { title: "Fix-ups for #\${{ pr.number }}", draft: false }
`;

describe('app: push-to-head', () => {
  it("the run's commits go onto the pull request's own branch, as a fast-forward, and no pull request is opened", async () => {
    h = await startHarness({ files: { '.agents/workflows/fixup.yml': FIXUP }, agents: { fix: [{ write: { 'feature.txt': 'fixed\n' } }] } });
    const head = await pushBranch(h, 'alice', 'feature', { 'feature.txt': 'new\n' });
    const n = await openPull(h, 'alice', 'feature');
    await h.settle();

    const rs = await records(h, n);
    expect(rs[0]).toContain(`run \`fixup-${n}-1\` — succeeded`);
    expect(rs[0]).toContain(`pushed to the branch of #${n}`);
    // The pull request's branch moved forward to the run's commit, which holds the fix; nothing else was opened.
    const pull = (await h.as('alice').rest.pulls.get({ ...o, pull_number: n })).data;
    expect(pull.head.sha).not.toBe(head);
    expect(await runBranchCommits(h, `fixup-${n}-1`)).toEqual(expect.arrayContaining([pull.head.sha, head]));
    const content = (await h.as('alice').rest.repos.getContent({ ...o, path: 'feature.txt', ref: 'feature' })).data as { content: string };
    expect(Buffer.from(content.content, 'base64').toString()).toBe('fixed\n');
    expect((await h.as('alice').rest.pulls.list({ ...o, state: 'all' })).data.map((p) => p.number)).toEqual([n]);
    // baton's own push is no new event to start on.
    expect(titles(h)).toEqual([`baton fixup-${n}-1 fix #1`]);
    h.emu.assertNoViolations();
  }, 60_000);

  it("a push to the pull request while the run worked: nothing is pushed over it, and the step says why", async () => {
    const go = join(mkdtempSync(join(tmpdir(), 'baton-push-')), 'go');
    h = await startHarness({ files: { '.agents/workflows/fixup.yml': FIXUP }, agents: { fix: [{ waitForFile: go, write: { 'feature.txt': 'fixed\n' } }] } });
    await pushBranch(h, 'alice', 'feature', { 'feature.txt': 'new\n' });
    const n = await openPull(h, 'alice', 'feature');
    await h.waitFor('the agent at work', () => h!.agentCalls().length === 1);
    const theirs = await pushTo(h, 'alice', 'feature', { 'other.txt': 'theirs\n' });
    writeFileSync(go, '');
    await h.settle();
    expect((await h.as('alice').rest.pulls.get({ ...o, pull_number: n })).data.head.sha).toBe(theirs);
    const rs = await records(h, n);
    expect(rs[0]).toContain('its branch moved on since the run started');
  }, 60_000);
});
