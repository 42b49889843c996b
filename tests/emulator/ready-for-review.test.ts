// A draft pull request marked ready for review (ready-for-review.ts): REST's "Update a pull
// request" cannot do it (it has no `draft`), the web UI / GraphQL way sends
// `pull_request.ready_for_review` with the pull request no longer a draft; only its author and
// people who may push can do it.
import { Octokit } from '@octokit/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from './emulator.ts';
import { markReadyForReview } from './ready-for-review.ts';

let emu: Emulator;
const o = { owner: 'acme', repo: 'widgets' };
const as = (login: string) => new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken(login) });

beforeAll(async () => {
  emu = await startEmulator();
  await emu.createRepo(o.owner, o.repo, { 'README.md': '# widgets\n' });
  emu.store.setRole(o.owner, o.repo, 'bob', 'write');
});
afterAll(async () => emu.close());

async function draftBy(login: string, branch: string): Promise<number> {
  const main = (await as(login).rest.git.getRef({ ...o, ref: 'heads/main' })).data.object.sha;
  await as('alice').rest.git.createRef({ ...o, ref: `refs/heads/${branch}`, sha: main });
  await as('alice').rest.repos.createOrUpdateFileContents({ ...o, path: `${branch}.txt`, branch, message: 'x', content: Buffer.from('x\n').toString('base64') });
  return (await as(login).rest.pulls.create({ ...o, head: branch, base: 'main', title: branch, draft: true })).data.number;
}

describe('emulator: marking a draft ready for review', () => {
  it('REST leaves the draft a draft; marking it ready sends `ready_for_review` with draft false, sent by whoever marked it', async () => {
    const n = await draftBy('alice', 'one');
    // GitHub's PATCH has no `draft`: sent anyway, it changes nothing.
    await as('alice').request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', { ...o, pull_number: n, draft: false } as never);
    expect((await as('alice').rest.pulls.get({ ...o, pull_number: n })).data.draft).toBe(true);

    await markReadyForReview(emu, { ...o, number: n, login: 'bob' });
    expect((await as('alice').rest.pulls.get({ ...o, pull_number: n })).data.draft).toBe(false);
    const ready = emu.webhooks.deliveries.filter((d) => d.event === 'pull_request' && d.action === 'ready_for_review');
    expect(ready.map((d) => [(d.payload as { pull_request: { number: number; draft: boolean } }).pull_request, (d.payload as { sender: { login: string } }).sender.login])).toEqual([[expect.objectContaining({ number: n, draft: false }), 'bob']]);
    // Not a draft any more: nothing to mark.
    await expect(markReadyForReview(emu, { ...o, number: n, login: 'bob' })).rejects.toThrow('is not a draft');
    emu.assertNoViolations();
  });

  it('a reader who did not open it may not mark it; its author may', async () => {
    const n = await draftBy('carol', 'two');
    await expect(markReadyForReview(emu, { ...o, number: n, login: 'mallory' })).rejects.toThrow('may not mark');
    await markReadyForReview(emu, { ...o, number: n, login: 'carol' });
    expect((await as('alice').rest.pulls.get({ ...o, pull_number: n })).data.draft).toBe(false);
  });
});
