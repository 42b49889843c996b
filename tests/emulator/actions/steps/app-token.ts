// actions/create-github-app-token: an installation access token of a GitHub App, minted the
// way the real action does it (actions/create-github-app-token README and main.js): a JWT
// (RS256, `iss` = the app id) signed with `private-key`; the installation of the current
// repository — or of `owner`'s `repositories` — looked up with it; then
// `POST /app/installations/{id}/access_tokens`, limited to those repositories and to the
// `permission-<name>` inputs. Outputs `token`, `installation-id`, `app-slug`; the token is
// masked in the log. Not modelled: an `owner` without `repositories` (the whole
// installation of a user or organization), and the post step that revokes the token (it
// expires after an hour like any installation token).
import { createPrivateKey, createSign } from 'node:crypto';
import { StepFailure, type StepInvocation, type StepOutcome } from '../types.ts';

/** The JWT the action signs: issued 30 s in the past for clock drift, valid 10 minutes. */
export function appJwt(appId: string, privateKeyPem: string, now = Date.now()): string {
  let key;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch (err) {
    throw new StepFailure(`private-key is not a valid PEM private key: ${(err as Error).message}`);
  }
  const iat = Math.floor(now / 1000) - 30;
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iat, exp: iat + 600, iss: appId })}`;
  const signature = createSign('RSA-SHA256').update(unsigned).sign(key).toString('base64url');
  return `${unsigned}.${signature}`;
}

/** `repositories: a, b` or one per line; `owner/name` keeps only `name`, as the action does. */
function listOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(/[\n,]+/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => s.replace(/^.*\//, ''));
}

export async function createAppToken(step: StepInvocation): Promise<StepOutcome> {
  const { job } = step;
  const appId = step.with['app-id'] || step.with['client-id'];
  const pem = (step.with['private-key'] ?? '').replace(/\\n/g, '\n');
  if (!appId) throw new StepFailure("Input required and not supplied: app-id");
  if (!pem) throw new StepFailure("Input required and not supplied: private-key");
  const owner = step.with.owner || job.run.owner;
  const repositories = listOf(step.with.repositories);
  if (step.with.owner && repositories.length === 0) throw new StepFailure('create-github-app-token with `owner` and no `repositories` (a whole installation) is not modelled by the emulator');
  const repos = repositories.length ? repositories : [job.run.repo];
  const permissions: Record<string, string> = {};
  for (const [name, value] of Object.entries(step.with)) {
    if (name.startsWith('permission-') && value) permissions[name.slice('permission-'.length).replace(/-/g, '_')] = value;
  }

  const api = (step.with['github-api-url'] || job.host.apiUrl).replace(/\/$/, '');
  const jwt = appJwt(appId, pem);
  const call = async (method: string, path: string, body?: object): Promise<Record<string, unknown>> => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${jwt}`, accept: 'application/vnd.github+json', 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: step.signal,
    });
    const data = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) throw new StepFailure(`${method} ${path} answered ${res.status}: ${String(data.message ?? '')}`);
    return data;
  };
  const installation = await call('GET', `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repos[0]!)}/installation`);
  const id = Number(installation.id);
  const minted = await call('POST', `/app/installations/${id}/access_tokens`, { repositories: repos, ...(Object.keys(permissions).length ? { permissions } : {}) });
  const token = String(minted.token);
  job.mask(token);
  job.log(`Created an installation access token of ${String(installation.app_slug)} for ${repos.map((r) => `${owner}/${r}`).join(', ')}`);
  return { outputs: { token, 'installation-id': String(id), 'app-slug': String(installation.app_slug) } };
}
