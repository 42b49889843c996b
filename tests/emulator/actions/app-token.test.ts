// actions/create-github-app-token in the runner: a real JWT signed with the private key from
// the secrets, checked by the emulator against the app's public key, an installation token
// for the current repository with the permissions asked for, masked in the log.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator.ts';
import { withActions } from './index.ts';
import type { ActionsRunner } from './runner.ts';

const WORKFLOW = `
on: workflow_dispatch
permissions: {}
jobs:
  comment:
    runs-on: ubuntu-latest
    steps:
      - id: app-token
        uses: actions/create-github-app-token@v2
        with:
          app-id: \${{ secrets.APP_ID }}
          private-key: \${{ secrets.APP_PRIVATE_KEY }}
          permission-issues: write
      - env:
          TOKEN: \${{ steps.app-token.outputs.token }}
          API: \${{ github.api_url }}
        run: |
          echo "token=$TOKEN slug=\${{ steps.app-token.outputs.app-slug }} installation=\${{ steps.app-token.outputs.installation-id }}"
          curl -sf -X POST -H "authorization: Bearer $TOKEN" -H "content-type: application/json" \\
            -d '{"body":"made with the app token"}' "$API/repos/acme/widgets/issues/1/comments" > /dev/null
          # asked for issues only: contents is out of reach
          code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "authorization: Bearer $TOKEN" -H "content-type: application/json" \\
            -d '{"ref":"refs/heads/nope","sha":"0000000000000000000000000000000000000000"}' "$API/repos/acme/widgets/git/refs")
          echo "refs answered $code"
`;

const keys = () => generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const app = keys();
const stranger = keys();

let emu: Emulator;
let runner: ActionsRunner;
let secrets: Record<string, string>;

beforeAll(async () => {
  secrets = { APP_ID: '', APP_PRIVATE_KEY: app.privateKey };
  const actions = withActions({ secrets });
  emu = await startEmulator({ appPublicKey: app.publicKey, plugins: [actions.plugin] });
  runner = actions.runner;
  secrets.APP_ID = String(emu.store.app.id);
  await emu.createRepo('acme', 'widgets', { 'README.md': '# widgets\n', '.github/workflows/app-token.yml': WORKFLOW });
  const alice = emu.auth.userToken('alice');
  await fetch(`${emu.apiUrl}/repos/acme/widgets/issues`, { method: 'POST', headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'One' }) });
});

afterAll(async () => {
  expect(runner?.errors ?? []).toEqual([]);
  await emu?.close();
});

const dispatch = () => runner.dispatch({ owner: 'acme', repo: 'widgets', workflow: 'app-token.yml', ref: 'main', inputs: {}, actor: emu.shapes.user('alice') });

describe('actions/create-github-app-token', () => {
  it("mints an installation token with the app's private key: outputs token, installation-id, app-slug; the token is masked", async () => {
    const run = await dispatch();
    await runner.idle();
    const log = runner.logs(run.id);
    expect(run.conclusion, log).toBe('success');
    expect(log).toContain(`token=*** slug=baton installation=${emu.store.repo('acme', 'widgets')!.installationId}`);
    expect(log).toContain('refs answered 403');
    const bodies = await (await fetch(`${emu.apiUrl}/repos/acme/widgets/issues/1/comments`)).json() as Array<{ body: string; user: { login: string } }>;
    expect(bodies.map((c) => [c.user.login, c.body])).toEqual([['baton[bot]', 'made with the app token']]);
    emu.assertNoViolations();
  });

  it('fails the step when the private key is not the app\'s (the JWT does not verify)', async () => {
    secrets.APP_PRIVATE_KEY = stranger.privateKey;
    try {
      const run = await dispatch();
      await runner.idle();
      const log = runner.logs(run.id);
      expect(run.conclusion).toBe('failure');
      expect(log).toContain('answered 401: A JSON web token could not be decoded');
    } finally {
      secrets.APP_PRIVATE_KEY = app.privateKey;
    }
  });
});
