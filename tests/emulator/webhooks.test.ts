// Signed webhook deliveries, verified by @octokit/webhooks as an app would, and the
// delivery faults: drop, duplicate, delay, reorder.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Octokit } from '@octokit/rest';
import { Webhooks } from '@octokit/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fakeJwt } from './app-jwt.ts';
import { startEmulator, type Emulator } from './emulator.ts';

const secret = 'it-is-a-secret';
const owner = 'acme';
const repo = 'widgets';

interface Received {
  id: string;
  name: string;
  action?: string;
  headers: Record<string, string | string[] | undefined>;
  payload: Record<string, unknown>;
}

let emu: Emulator;
let receiver: Server;
let octokit: Octokit;
const received: Received[] = [];
const verifier = new Webhooks({ secret });
/** The receiver answers the next this-many deliveries with a 500 (a crashed App). */
let failNext = 0;
verifier.onAny(() => {});

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        await verifier.verifyAndReceive({
          id: String(req.headers['x-github-delivery']),
          name: String(req.headers['x-github-event']) as never,
          payload: body,
          signature: String(req.headers['x-hub-signature-256']),
        });
        const payload = JSON.parse(body) as Record<string, unknown>;
        if (failNext > 0) {
          failNext--;
          res.writeHead(500).end('boom');
          return;
        }
        received.push({ id: String(req.headers['x-github-delivery']), name: String(req.headers['x-github-event']), action: payload.action as string | undefined, headers: req.headers, payload });
        res.writeHead(200).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  emu = await startEmulator({ webhookUrl: `http://127.0.0.1:${port}/`, webhookSecret: secret });
  await emu.createRepo(owner, repo);
  octokit = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.userToken('alice') });
});

afterEach(async () => {
  await emu.webhooks.idle();
  emu.faults.clear();
  received.length = 0;
  expect(emu.violations.splice(0)).toEqual([]);
});

afterAll(async () => {
  await emu.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('deliveries', () => {
  it('delivers a signed issues.labeled that @octokit/webhooks verifies', async () => {
    const { data: issue } = await octokit.issues.create({ owner, repo, title: 'Fix it' });
    await octokit.issues.addLabels({ owner, repo, issue_number: issue.number, labels: ['baton:fix-issue'] });
    await emu.webhooks.idle();
    const labeled = received.find((r) => r.name === 'issues' && r.action === 'labeled');
    expect(labeled).toBeDefined();
    expect(labeled!.payload).toMatchObject({
      label: { name: 'baton:fix-issue' },
      issue: { number: issue.number },
      repository: { full_name: 'acme/widgets' },
      installation: { id: 1 },
      sender: { login: 'alice' },
    });
    expect(labeled!.headers).toMatchObject({ 'x-github-hook-id': expect.any(String), 'content-type': 'application/json' });
    expect(labeled!.headers['x-github-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(emu.webhooks.deliveries.every((d) => d.status === 200)).toBe(true);
  });

  it('an issue opened with labels sends issues.opened, then one issues.labeled per label', async () => {
    const { data: issue } = await octokit.issues.create({ owner, repo, title: 'Labelled at birth', labels: ['bug', 'baton:fix-issue'] });
    await emu.webhooks.idle();
    const names = received.map((r) => `${r.name}.${r.action}`);
    expect(names).toEqual(['issues.opened', 'issues.labeled', 'issues.labeled']);
    expect(received.slice(1).map((r) => r.payload)).toMatchObject([
      { label: { name: 'bug' }, issue: { number: issue.number, labels: [{ name: 'bug' }, { name: 'baton:fix-issue' }] }, sender: { login: 'alice' } },
      { label: { name: 'baton:fix-issue' }, issue: { number: issue.number }, sender: { login: 'alice' } },
    ]);
  });

  it('overlaps deliveries when asked, as GitHub does: each sent without waiting for earlier answers', async () => {
    // A slow receiver: how many deliveries it holds at once.
    let open = 0;
    let most = 0;
    const slow = createServer((req, res) => {
      open += 1;
      most = Math.max(most, open);
      req.resume();
      setTimeout(() => {
        open -= 1;
        res.writeHead(200).end();
      }, 100);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    const fast = emu.webhooks.url;
    try {
      emu.webhooks.configure({ url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/` });
      const { data: issue } = await octokit.issues.create({ owner, repo, title: 'Busy' });
      await octokit.issues.addLabels({ owner, repo, issue_number: issue.number, labels: ['a', 'b'] });
      await emu.webhooks.idle();
      expect(most).toBe(1);
      emu.webhooks.configure({ overlap: true });
      await octokit.issues.addLabels({ owner, repo, issue_number: issue.number, labels: ['c', 'd', 'e'] });
      await emu.webhooks.idle();
      expect(most).toBeGreaterThanOrEqual(2);
      expect(emu.webhooks.deliveries.slice(-3).map((d) => d.status)).toEqual([200, 200, 200]);
    } finally {
      emu.webhooks.configure({ url: fast!, overlap: false });
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });

  it('a receiver with the wrong secret rejects the signature', async () => {
    const body = JSON.stringify({ zen: 'hi' });
    const wrong = new Webhooks({ secret: 'wrong' });
    expect(await wrong.verify(body, emu.webhooks.sign(body))).toBe(false);
    expect(await verifier.verify(body, emu.webhooks.sign(body))).toBe(true);
  });

  it('sends comment, check run, check suite and status events', async () => {
    const { data: issue } = await octokit.issues.create({ owner, repo, title: 'Events' });
    await octokit.issues.createComment({ owner, repo, issue_number: issue.number, body: '/baton help' });
    const sha = (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    // Check runs are for GitHub Apps only: a CI app's installation token.
    const ciApp = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { checks: 'write' }, login: 'ci-app[bot]' }) });
    const run = await ciApp.checks.create({ owner, repo, name: 'ci', head_sha: sha });
    await ciApp.checks.update({ owner, repo, check_run_id: run.data.id, conclusion: 'failure' });
    await octokit.repos.createCommitStatus({ owner, repo, sha, state: 'success', context: 'ci' });
    await emu.webhooks.idle();
    const names = received.map((r) => (r.action === undefined ? r.name : `${r.name}.${r.action}`));
    expect(names).toEqual(['issues.opened', 'issue_comment.created', 'check_run.created', 'check_run.completed', 'check_suite.completed', 'status']);
    expect(received.find((r) => r.name === 'check_suite')!.payload).toMatchObject({ check_suite: { conclusion: 'failure', head_sha: sha } });
  });

  it('sends create, push and delete for branches and tags, and nothing for a ref elsewhere (a baton claim)', async () => {
    const sha = (await octokit.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha;
    await octokit.git.createRef({ owner, repo, ref: 'refs/heads/topic', sha });
    await octokit.git.createRef({ owner, repo, ref: 'refs/tags/v1', sha });
    await octokit.git.createRef({ owner, repo, ref: 'refs/baton/leases/fix-issue-1-1', sha });
    await octokit.git.deleteRef({ owner, repo, ref: 'baton/leases/fix-issue-1-1' });
    await octokit.git.deleteRef({ owner, repo, ref: 'heads/topic' });
    await emu.webhooks.idle();
    const seen = received.map((r) => `${r.name} ${String(r.payload.ref)}${r.payload.ref_type ? ` ${String(r.payload.ref_type)}` : ''}`);
    expect(seen).toEqual(['push refs/heads/topic', 'create topic branch', 'push refs/tags/v1', 'create v1 tag', 'push refs/heads/topic', 'delete topic branch']);
    expect(received.find((r) => r.name === 'create')!.payload).toMatchObject({ master_branch: 'main', pusher_type: 'user', sender: { login: 'alice' } });
  });

  it('emits payloads tests write, filling installation, repository and sender', async () => {
    const { data: issue } = await octokit.issues.create({ owner, repo, title: 'Hand-made' });
    await emu.webhooks.idle();
    received.length = 0;
    const issueJson = (await octokit.issues.get({ owner, repo, issue_number: issue.number })).data as unknown as Record<string, unknown>;
    emu.webhooks.emit('issues', { action: 'reopened', issue: { ...issueJson, state: 'open' } }, { owner, repo, sender: 'bob' });
    await emu.webhooks.idle();
    expect(received[0]!.payload).toMatchObject({ action: 'reopened', sender: { login: 'bob' }, installation: { id: 1 } });
    expect(() => emu.webhooks.emit('issues', { action: 'labeled' }, { owner, repo })).toThrow(/issues\$labeled/);
    emu.violations.splice(0);
  });
});

describe('the deliveries API (an operator redelivering)', () => {
  it('lists attempts newest first with cursor pages, shows one, and redelivers it with the same guid and payload', async () => {
    const asApp = new Octokit({ baseUrl: emu.apiUrl, auth: fakeJwt() });
    const { data: issue } = await octokit.issues.create({ owner, repo, title: 'Delivered' });
    await emu.webhooks.idle();
    failNext = 1;
    await octokit.issues.createComment({ owner, repo, issue_number: issue.number, body: 'lost while the App was down' });
    await octokit.issues.createComment({ owner, repo, issue_number: issue.number, body: 'after' });
    await emu.webhooks.idle();
    expect(received.map((r) => r.payload.comment && (r.payload.comment as { body: string }).body).filter(Boolean)).toEqual(['after']);

    // Two a page: the Link header's cursor leads on, newest first, each attempt its own id.
    const first = await asApp.request('GET /app/hook/deliveries', { per_page: 2 });
    expect(first.headers.link).toMatch(/cursor=v1_\d+.*rel="next"/);
    const all = await asApp.paginate('GET /app/hook/deliveries', { per_page: 2 });
    const ids = all.map((d) => d.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.slice(0, 3).map((d) => `${d.event}.${d.action} ${d.status_code}`)).toEqual(['issue_comment.created 200', 'issue_comment.created 500', 'issues.opened 200']);
    const failed = (await asApp.request('GET /app/hook/deliveries', { status: 'failure' })).data;
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ status: 'Invalid HTTP Response: 500', status_code: 500, redelivery: false, installation_id: 1, repository_id: expect.any(Number) });
    const shown = (await asApp.request('GET /app/hook/deliveries/{delivery_id}', { delivery_id: Number(failed[0]!.id) })).data;
    expect(shown.request.payload).toMatchObject({ comment: { body: 'lost while the App was down' } });
    expect(shown.response.payload).toBe('boom');

    // Redelivered: 202, then the same guid (X-GitHub-Delivery) and payload arrive again.
    expect((await asApp.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: Number(failed[0]!.id) })).status).toBe(202);
    await emu.webhooks.idle();
    const again = received.at(-1)!;
    expect(again.id).toBe(failed[0]!.guid);
    expect(again.payload).toEqual(shown.request.payload);
    const newest = (await asApp.request('GET /app/hook/deliveries', { per_page: 1 })).data[0]!;
    expect(newest).toMatchObject({ guid: failed[0]!.guid, redelivery: true, status: 'OK', status_code: 200 });
    expect(newest.id).toBeGreaterThan(failed[0]!.id);

    // The App's JWT only: an installation token is refused.
    const installation = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { issues: 'write' } }) });
    await expect(installation.request('GET /app/hook/deliveries')).rejects.toMatchObject({ status: 401 });
    await expect(asApp.request('POST /app/hook/deliveries/{delivery_id}/attempts', { delivery_id: 1 })).rejects.toMatchObject({ status: 404 });
  });
});

describe('delivery faults', () => {
  /** Opens an issue, then arms `fault` and labels it: only the labeled delivery meets the fault. */
  async function labelOnce(name: string, fault: Parameters<Emulator['faults']['addWebhook']>[0]): Promise<void> {
    const { data: issue } = await octokit.issues.create({ owner, repo, title: name });
    await emu.webhooks.idle();
    received.length = 0;
    emu.faults.addWebhook(fault);
    await octokit.issues.addLabels({ owner, repo, issue_number: issue.number, labels: [name] });
    await emu.webhooks.idle();
  }

  it('drops a delivery', async () => {
    await labelOnce('dropped', { kind: 'drop', event: 'issues.labeled' });
    expect(received).toEqual([]);
    expect(emu.webhooks.deliveries.at(-1)).toMatchObject({ event: 'issues', action: 'labeled', dropped: true });
    // Redelivery brings it back with the same id.
    await emu.webhooks.redeliver(emu.webhooks.deliveries.at(-1)!.id);
    expect(received.map((r) => r.action)).toEqual(['labeled']);
  });

  it('duplicates a delivery with the same delivery id', async () => {
    await labelOnce('twice', { kind: 'duplicate', event: 'issues' });
    expect(received.map((r) => r.action)).toEqual(['labeled', 'labeled']);
    expect(received[0]!.id).toBe(received[1]!.id);
  });

  it('reorders: a held delivery arrives after the next one', async () => {
    const { data: issue } = await octokit.issues.create({ owner, repo, title: 'reorder' });
    await emu.webhooks.idle();
    received.length = 0;
    emu.faults.addWebhook({ kind: 'reorder', event: 'issues.labeled' });
    await octokit.issues.addLabels({ owner, repo, issue_number: issue.number, labels: ['first'] });
    await octokit.issues.createComment({ owner, repo, issue_number: issue.number, body: 'second' });
    await emu.webhooks.idle();
    expect(received.map((r) => r.name)).toEqual(['issue_comment', 'issues']);
  });

  it('delays a delivery', async () => {
    const started = Date.now();
    await labelOnce('late', { kind: 'delay', event: 'issues.labeled', delayMs: 150 });
    expect(received.map((r) => r.action)).toEqual(['labeled']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(emu.faults.injected.at(-1)).toMatchObject({ kind: 'delay', target: 'issues.labeled' });
  });
});
