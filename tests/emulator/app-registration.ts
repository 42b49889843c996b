/**
 * GitHub's manifest flow, GitHub's side (docs "Registering a GitHub App from a manifest",
 * https://docs.github.com/apps/sharing-github-apps/registering-a-github-app-from-a-manifest):
 *
 *   1. a browser POSTs a form with the field `manifest` (JSON) to `/settings/apps/new` (or
 *      `/organizations/<org>/settings/apps/new`); GitHub registers the App and redirects to the
 *      manifest's `redirect_url` with `?code=<temporary code>` (and the form's `state`, if any);
 *   2. the App's server exchanges the code, without credentials, with
 *      `POST /app-manifests/{code}/conversions` (201: the App with `pem`, `webhook_secret`,
 *      `client_id`, `client_secret`).
 *
 * The docs: "You must complete all three steps of the GitHub App Manifest flow within one
 * hour", so a code expires an hour after the App is registered; a code is exchanged once
 * (it is "single-use", as clients of the flow document it, e.g. the github-app-forge crate's
 * `exchange_manifest_code`). An unknown, used or expired code is the endpoint's 404.
 *
 * The registered App becomes the App the emulator serves (Store.serveApp): its JWTs are
 * verified with the public half of the `pem` handed out, it is installed as the default App
 * is, and webhooks go to the manifest's `hook_attributes.url`, signed with its secret.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { parseAppManifest } from './app-manifest.ts';
import type { Auth } from './auth.ts';
import { now, type App, type Store } from './store.ts';
import type { Webhooks } from './webhooks.ts';

/** "within one hour" (docs, above). */
export const CODE_TTL_MS = 60 * 60 * 1000;

/** The manifest fields the flow reads (docs, "GitHub App Manifest parameters"). */
export interface Manifest {
  name?: string;
  url: string;
  description?: string;
  public?: boolean;
  redirect_url?: string;
  hook_attributes?: { url: string; active?: boolean };
  default_permissions?: Record<string, string>;
  default_events?: string[];
}

export interface Credentials {
  app: App;
  pem: string;
  webhookSecret: string;
  clientSecret: string;
}

interface Pending extends Credentials {
  issuedAt: number;
}

/** Why a manifest cannot register an App, or null when it can. */
export function manifestProblem(manifest: unknown): string | null {
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) return 'the manifest is not a JSON object';
  const m = manifest as Record<string, unknown>;
  // "url — Required. The homepage of your GitHub App." (docs, manifest parameters)
  if (typeof m.url !== 'string' || m.url === '') return 'the manifest has no url (the App\'s homepage), which GitHub requires';
  const hook = m.hook_attributes as Record<string, unknown> | undefined;
  // "hook_attributes.url — Required. The URL of the server that will receive the webhook POST requests."
  if (hook !== undefined && (typeof hook !== 'object' || hook === null || typeof hook.url !== 'string' || hook.url === '')) return 'hook_attributes has no url, which GitHub requires';
  if (m.name !== undefined && typeof m.name !== 'string') return 'name is not a string';
  try {
    parseAppManifest(JSON.stringify({ default_permissions: m.default_permissions ?? {}, default_events: m.default_events ?? [] }), 'manifest');
  } catch (error) {
    return (error as Error).message;
  }
  return null;
}

/** A slug as GitHub makes one from an App's name: lower case, runs of other characters → `-`. */
export function slugOf(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'app';
}

export class AppRegistrations {
  private readonly pending = new Map<string, Pending>();
  /** Milliseconds since the epoch; tests move it to see a code expire. */
  clock: () => number = () => Date.now();

  constructor(
    private readonly store: Store,
    private readonly auth: Auth,
    private readonly webhooks: Webhooks,
  ) {}

  /**
   * Registers an App from a (valid, see manifestProblem) manifest for `owner`, makes it the
   * App the emulator serves, and answers the temporary code for its credentials.
   */
  register(manifest: Manifest, owner: string): string {
    const name = manifest.name ?? `${owner}-app`;
    const slug = slugOf(name);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs1', format: 'pem' } });
    const { permissions, events } = parseAppManifest(JSON.stringify({ default_permissions: manifest.default_permissions ?? {}, default_events: manifest.default_events ?? [] }), 'manifest');
    const app: App = {
      id: this.store.nextId(),
      slug,
      name,
      clientId: `Iv1.${randomBytes(8).toString('hex')}`,
      owner,
      botLogin: `${slug}[bot]`,
      // Every App may read metadata; GitHub adds it to any manifest's permissions.
      permissions: { metadata: 'read', ...permissions },
      events,
      createdAt: now(),
      ...(manifest.description === undefined ? {} : { description: manifest.description }),
    };
    const webhookSecret = randomBytes(20).toString('hex');
    this.store.serveApp(app);
    this.auth.registerAppKey(publicKey);
    const hook = manifest.hook_attributes;
    // An inactive hook delivers nothing; the webhook secret is set either way.
    this.webhooks.configure({ secret: webhookSecret });
    this.webhooks.url = hook !== undefined && hook.active !== false ? hook.url : undefined;
    const code = randomBytes(20).toString('hex');
    this.pending.set(code, { app, pem: privateKey, webhookSecret, clientSecret: randomBytes(20).toString('hex'), issuedAt: this.clock() });
    return code;
  }

  /** The credentials behind a code, once; undefined for an unknown, used or expired code. */
  convert(code: string): Credentials | undefined {
    const found = this.pending.get(code);
    if (found === undefined) return undefined;
    this.pending.delete(code);
    if (this.clock() - found.issuedAt > CODE_TTL_MS) return undefined;
    return found;
  }
}
