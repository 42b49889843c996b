// GitHub paces an App's writes per installation (its secondary limits are per installation), and
// so does the App: plugin-throttling keeps one queue per throttle id, a second between writes and
// three between comments. The client a webhook's handler gets from Probot (octokit-auth-probot's
// "event-octokit") carries no throttle id of its own: without the App's (octokit.ts throttleIdOf)
// every installation's writes would share one queue, each installation's burst holding back the
// others'. Here, on the emulator, with the App's Octokit as `npm start` builds it and time
// compressed (pacing on, never switched off).
import { generateKeyPairSync } from 'node:crypto';
import { Octokit } from '@octokit/rest';
import { pino } from 'pino';
import { Probot } from 'probot';
import { afterEach, describe, expect, it } from 'vitest';
import { batonOctokit, GITHUB_PACING_MS } from '../../src/app/octokit.ts';
import { startEmulator, type Emulator } from '../emulator/emulator.ts';

let emu: Emulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

type Client = InstanceType<ReturnType<typeof batonOctokit>>;

/** The client Probot hands a webhook's handler for an event of `installationId` (its webhook transform). */
async function eventClient(probot: Probot, installationId: number): Promise<Client> {
  const app = await probot.auth();
  const event = { id: `delivery-${installationId}`, name: 'issues', payload: { action: 'opened', installation: { id: installationId } } };
  return (await (app.auth as (o: unknown) => Promise<unknown>)({ type: 'event-octokit', event })) as Client;
}

describe('app: writes are paced per installation', () => {
  it("one installation's burst of comments does not hold back another installation's comment", async () => {
    // Comments three compressed seconds apart: 300 ms.
    const timeScale = 0.1;
    const spacingMs = GITHUB_PACING_MS.notifications * timeScale;
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
    emu = await startEmulator({ appPublicKey: publicKey });
    await emu.createRepo('acme', 'widgets', { 'README.md': '# widgets\n' });
    await emu.createRepo('globex', 'gadgets', { 'README.md': '# gadgets\n' });
    for (const [owner, repo] of [['acme', 'widgets'], ['globex', 'gadgets']] as const) {
      emu.store.setRole(owner, repo, 'alice', 'admin');
      await new Octokit({ baseUrl: emu.url, auth: emu.auth.userToken('alice') }).rest.issues.create({ owner, repo, title: 'Hello', body: '' });
    }
    const probot = new Probot({ appId: 1, privateKey, baseUrl: `${emu.url}/api/v3`, log: pino({ level: 'warn' }), Octokit: batonOctokit({ timeScale }) });
    const acme = await eventClient(probot, emu.store.installation('acme').id);
    const globex = await eventClient(probot, emu.store.installation('globex').id);
    // Both hold their installation token (reads are not paced): what follows is writes only.
    await acme.rest.issues.get({ owner: 'acme', repo: 'widgets', issue_number: 1 });
    await globex.rest.issues.get({ owner: 'globex', repo: 'gadgets', issue_number: 1 });

    const comment = (c: Client, owner: string, repo: string, body: string) => c.rest.issues.createComment({ owner, repo, issue_number: 1, body });
    const t0 = performance.now();
    await comment(acme, 'acme', 'widgets', 'acme 0');
    const burst = Promise.all([1, 2, 3, 4].map((i) => comment(acme, 'acme', 'widgets', `acme ${i}`)));
    const sent = performance.now();
    await comment(globex, 'globex', 'gadgets', 'globex');
    const globexMs = performance.now() - sent;
    await burst;
    const acmeMs = performance.now() - t0;

    // Pacing was on: the burst's five comments took four spacings at least.
    expect(acmeMs).toBeGreaterThanOrEqual(4 * spacingMs);
    // The other installation's comment went out at once: before any more of the burst's, well
    // within one spacing (sharing the queue, it waits behind the burst's next ones).
    const comments = emu.requestLog.filter((r) => r.route === 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments').map((r) => r.path.split('/')[2]);
    expect(comments).toEqual(['acme', 'globex', 'acme', 'acme', 'acme', 'acme']);
    expect(globexMs).toBeLessThan(spacingMs);
  });
});
