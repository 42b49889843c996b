/**
 * Credentials as GitHub hands them out: app JWTs (RS256, signed with the app's private
 * key), installation tokens (`ghs_…`, from `POST /app/installations/{id}/access_tokens`
 * or minted for a runner's `GITHUB_TOKEN`) and user tokens (`ghp_…`, for tests that act
 * as a person). Each route declares the permission it needs; a token without it gets
 * GitHub's 403 `Resource not accessible by integration`.
 */
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { HttpError, type RouteOptions } from './http/router.ts';
import type { Store } from './store.ts';

export type Level = 'read' | 'write' | 'admin';
export type Permissions = Record<string, Level>;

export type Identity =
  | { kind: 'anonymous'; label: 'anonymous' }
  | { kind: 'app'; appId: number; label: string }
  | {
      kind: 'installation';
      token: string;
      installationId: number;
      permissions: Permissions;
      /** Full names (`owner/repo`) the token may touch; undefined = all of the installation's. */
      repositories?: string[];
      /** The bot the token acts as: `baton[bot]`, or `github-actions[bot]` for runner tokens. */
      login: string;
      label: string;
      expiresAt: Date;
    }
  | { kind: 'user'; token: string; login: string; label: string };

export interface MintOptions {
  owner: string;
  repo: string;
  permissions: Permissions;
  /** Defaults to `github-actions[bot]`, the identity of a runner's `GITHUB_TOKEN`. */
  login?: string;
}

const RANK: Record<Level, number> = { read: 1, write: 2, admin: 3 };
const TOKEN_TTL_MS = 60 * 60 * 1000;

export class Auth {
  private readonly tokens = new Map<string, Exclude<Identity, { kind: 'anonymous' } | { kind: 'app' }>>();
  private appKey: KeyObject | undefined;

  constructor(private readonly store: Store) {}

  /**
   * Verify app JWTs against this public key (PEM). Without one, any well-formed,
   * unexpired RS256 JWT is accepted — standalone mode, so `npm start` works against it.
   */
  registerAppKey(publicKeyPem: string): void {
    this.appKey = createPublicKey(publicKeyPem);
  }

  /** A `GITHUB_TOKEN`-like installation token for one repository. */
  mint(options: MintOptions): string {
    const repo = this.store.repo(options.owner, options.repo);
    if (repo === undefined) throw new Error(`mint: no repository ${options.owner}/${options.repo}`);
    return this.issue(repo.installationId, options.permissions, [repo.fullName], options.login ?? 'github-actions[bot]').token;
  }

  /** What `POST /app/installations/{id}/access_tokens` hands out. */
  issue(installationId: number, permissions: Permissions, repositories: string[] | undefined, login = this.store.app.botLogin) {
    const token = `ghs_${randomBytes(18).toString('base64url')}`;
    const identity = {
      kind: 'installation' as const,
      token,
      installationId,
      permissions,
      repositories,
      login,
      label: login === this.store.app.botLogin ? `installation:${installationId}` : `${login}:${(repositories ?? []).join(',')}`,
      expiresAt: new Date(Date.now() + TOKEN_TTL_MS),
    };
    this.tokens.set(token, identity);
    return identity;
  }

  /** A personal token acting as `login` (a maintainer commenting, a reviewer reviewing). */
  userToken(login: string): string {
    const token = `ghp_${randomBytes(18).toString('base64url')}`;
    this.store.user(login);
    this.tokens.set(token, { kind: 'user', token, login, label: `user:${login}` });
    return token;
  }

  revoke(token: string): void {
    this.tokens.delete(token);
  }

  /** The identity behind an `Authorization` header; throws 401 like GitHub for bad credentials. */
  authenticate(headers: IncomingHttpHeaders): Identity {
    const header = headers.authorization;
    if (header === undefined || header === '') return { kind: 'anonymous', label: 'anonymous' };
    const match = /^(?:bearer|token)\s+(\S+)$/i.exec(header);
    if (match === null) throw new HttpError(401, 'Bad credentials');
    const credential = match[1]!;
    if (credential.split('.').length === 3) return this.verifyJwt(credential);
    const identity = this.tokens.get(credential);
    if (identity === undefined) throw new HttpError(401, 'Bad credentials');
    if (identity.kind === 'installation' && identity.expiresAt.getTime() < Date.now()) throw new HttpError(401, 'Bad credentials');
    return identity;
  }

  private verifyJwt(jwt: string): Identity {
    const [head, payload, signature] = jwt.split('.') as [string, string, string];
    let header: { alg?: string };
    let claims: { iss?: string | number; exp?: number; iat?: number };
    try {
      header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as typeof header;
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      throw new HttpError(401, 'A JSON web token could not be decoded');
    }
    if (header.alg !== 'RS256') throw new HttpError(401, 'A JSON web token could not be decoded');
    const now = Math.floor(Date.now() / 1000);
    if (typeof claims.exp !== 'number' || claims.exp < now) {
      throw new HttpError(401, "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires");
    }
    if (typeof claims.iat === 'number' && claims.iat > now + 60) {
      throw new HttpError(401, "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued");
    }
    if (String(claims.iss) !== String(this.store.app.id) && String(claims.iss) !== this.store.app.clientId) {
      // Standalone mode takes any app id: the emulator serves one app whatever it is called.
      if (this.appKey !== undefined) throw new HttpError(401, 'A JSON web token could not be decoded');
    }
    if (this.appKey !== undefined) {
      const ok = verify('RSA-SHA256', Buffer.from(`${head}.${payload}`), this.appKey, Buffer.from(signature, 'base64url'));
      if (!ok) throw new HttpError(401, 'A JSON web token could not be decoded');
    }
    return { kind: 'app', appId: this.store.app.id, label: 'app' };
  }

  /**
   * Throws GitHub's answer when `identity` may not call a route:
   * 401 without credentials for writes, 401 when an app JWT is needed, 404 for a repository
   * outside the token's reach, 403 when the token lacks the route's permission.
   */
  authorize(identity: Identity, options: RouteOptions, params: Record<string, string>, method: string): void {
    if (options.auth === 'none') return;
    if (options.auth === 'app') {
      if (identity.kind !== 'app') throw new HttpError(401, 'A JSON web token could not be decoded');
      return;
    }
    if (identity.kind === 'app') {
      throw new HttpError(403, 'Resource not accessible by integration');
    }
    if (identity.kind === 'anonymous') {
      // Anyone may read a public repository, nobody may write; a private one does not exist for them.
      if (params.owner !== undefined && params.repo !== undefined && this.store.repo(params.owner, params.repo)?.visibility === 'private') throw new HttpError(404, 'Not Found');
      if (method === 'GET' || method === 'HEAD') return;
      throw new HttpError(401, 'Requires authentication');
    }
    if (identity.kind === 'user') return;
    const { owner, repo } = params;
    if (owner !== undefined && repo !== undefined) {
      const record = this.store.repo(owner, repo);
      const fullName = record?.fullName ?? `${owner}/${repo}`;
      const inReach =
        record !== undefined &&
        record.installationId === identity.installationId &&
        (identity.repositories === undefined || identity.repositories.includes(fullName));
      if (!inReach) throw new HttpError(404, 'Not Found');
    }
    if (options.permission !== undefined) {
      const [scope, level] = options.permission;
      const granted = identity.permissions[scope];
      if (granted === undefined || RANK[granted] < RANK[level]) throw new HttpError(403, 'Resource not accessible by integration');
    }
  }
}

/** Permissions of a token minted from a job's `permissions:` block; metadata is always readable. */
export function withMetadata(permissions: Permissions): Permissions {
  return { metadata: 'read', ...permissions };
}
