// Round 3, attack 7, and the one door every ref write passes (src/hosts/github/git-refs.ts).
// A pull request whose head is the default branch ("sync main into release-1"), or a protected
// branch, with a `push-to-head` workflow: baton must not move that branch to the agent's commit —
// an App may bypass branch protection, so the emulator (like GitHub for a bypass actor) would take
// the write. The run ends saying which branch and why. And no ref write in src/ goes around the
// door: a write route anywhere else fails the scan below.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { refusal } from '../../src/hosts/github/git-refs.ts';
import type { RepoContext } from '../../src/hosts/github/client.ts';
import { startHarness, type Harness } from '../app/harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

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

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const tip = async (h: Harness, branch: string) => (await h.as('alice').rest.git.getRef({ ...o, ref: `heads/${branch}` })).data.object.sha;

/** alice makes `branch` at main's tip (a person's write), then commits `file` on `onto`. */
async function prepare(h: Harness, branch: string, onto: string, file: string): Promise<void> {
  await h.as('alice').rest.git.createRef({ ...o, ref: `refs/heads/${branch}`, sha: await tip(h, 'main') });
  await h.as('alice').rest.repos.createOrUpdateFileContents({ ...o, path: file, branch: onto, message: `Change ${file}`, content: b64('new\n') });
}

describe('round 3: push-to-head never writes the default branch or a protected branch', () => {
  it('a pull request whose head is main ("sync main into release-1"): main does not move; the run says why, naming main', async () => {
    h = await startHarness({ files: { '.agents/workflows/fixup.yml': FIXUP }, agents: { fix: [{ write: { 'feature.txt': 'agent code\n' } }] } });
    await prepare(h, 'release-1', 'main', 'sync.txt');
    const main = await tip(h, 'main');
    const n = (await h.as('alice').rest.pulls.create({ ...o, head: 'main', base: 'release-1', title: 'Sync main into release-1' })).data.number;
    await h.settle();

    expect(await tip(h, 'main')).toBe(main);
    const record = await h.record(n);
    expect(record).toContain(`nothing was pushed to pull request #${n}`);
    expect(record).toContain("`main` is the repository's default branch, which baton never writes");
    expect(record).toMatch(/— failed/);
  }, 120_000);

  it('a pull request whose head branch the repository protects: it does not move; the run says why, naming it', async () => {
    h = await startHarness({ files: { '.agents/workflows/fixup.yml': FIXUP }, agents: { fix: [{ write: { 'feature.txt': 'agent code\n' } }] } });
    await prepare(h, 'hotfix', 'hotfix', 'hot.txt');
    h.emu.repo(o.owner, o.repo).protectedBranches = new Set(['hotfix']);
    const hotfix = await tip(h, 'hotfix');
    const n = (await h.as('alice').rest.pulls.create({ ...o, head: 'hotfix', base: 'main', title: 'Hot fix' })).data.number;
    await h.settle();

    expect(await tip(h, 'hotfix')).toBe(hotfix);
    const record = await h.record(n);
    expect(record).toContain('`hotfix` is a branch the repository protects, which baton never writes');
    expect(record).toMatch(/— failed/);
  }, 120_000);
});

describe('the ref door', () => {
  const gh = (protectedBranches: string[] = []) =>
    ({
      owner: 'acme',
      repo: 'widgets',
      defaultBranch: 'main',
      octokit: { request: async (_route: string, p: { branch: string }) => ({ data: { protected: protectedBranches.includes(p.branch) } }) },
    }) as unknown as RepoContext;

  it("admits baton's own namespaces and a granted, unprotected pull request head; refuses everything else", async () => {
    for (const ref of ['refs/heads/baton/fix-1-1', 'heads/baton/steps/fix-1-1/a', 'refs/baton/leases/fix-1-1/3', 'refs/baton/schedule/x/1']) expect(await refusal(gh(), ref)).toBeUndefined();
    expect(await refusal(gh(), 'refs/heads/feature', { branch: 'feature', pull: 3 })).toBeUndefined();
    for (const ref of ['refs/heads/main', 'heads/main', 'refs/heads/feature', 'refs/tags/v1', 'refs/pull/3/head', 'refs/heads/baton', 'refs/notes/commits']) expect(await refusal(gh(), ref)).toMatch(/never writes|outside baton's own refs/);
    // A grant names one branch: never the default branch, never a protected one, never another.
    expect(await refusal(gh(), 'refs/heads/main', { branch: 'main', pull: 3 })).toContain("default branch");
    expect(await refusal(gh(['feature']), 'refs/heads/feature', { branch: 'feature', pull: 3 })).toContain('protects');
    expect(await refusal(gh(), 'refs/heads/other', { branch: 'feature', pull: 3 })).toContain("outside baton's own refs");
    expect(await refusal(gh(['release/1.x']), 'refs/heads/release/1.x', { branch: 'release/1.x', pull: 3 })).toContain('protects');
    // A branch whose protection cannot be read (GitHub answers 404) is not written either.
    const gone = { ...gh(), octokit: { request: async () => Promise.reject(Object.assign(new Error('Branch not found'), { status: 404 })) } } as unknown as RepoContext;
    expect(await refusal(gone, 'refs/heads/feature', { branch: 'feature', pull: 3 })).toContain('cannot be told');
  });

  it('is the only place in src/ that writes a ref (create, update, delete, merges, contents)', () => {
    const root = join(__dirname, '../../src');
    const files = (dir: string): string[] => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : f.endsWith('.ts') ? [join(dir, f)] : []));
    const WRITES = [
      /['"`](POST|PATCH|DELETE|PUT) \/repos\/\{owner\}\/\{repo\}\/(git\/refs|merges|contents\/)/,
      /\brest\.(git\.(createRef|updateRef|deleteRef)|repos\.(merge|createOrUpdateFileContents|deleteFile))\b/,
    ];
    const outside = files(root)
      .filter((f) => relative(root, f) !== join('hosts', 'github', 'git-refs.ts'))
      .flatMap((f) => readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (WRITES.some((w) => w.test(line)) ? [`${relative(root, f)}:${i + 1}: ${line.trim()}`] : [])));
    expect(outside).toEqual([]);
  });
});
