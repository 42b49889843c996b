/**
 * The emulator's state outside git: users, the app and its installations, and per
 * repository the issues, pull requests, comments, labels, reactions, check runs,
 * statuses and reviews. Plain records; shapes.ts turns them into GitHub's JSON.
 * Git objects and refs are never copied here: they live in the bare repository.
 */
import { batonAppManifest } from './app-manifest.ts';
import type { Permissions } from './auth.ts';

export type Role = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface User {
  login: string;
  id: number;
  type: 'User' | 'Bot' | 'Organization';
}

export interface App {
  id: number;
  slug: string;
  name: string;
  clientId: string;
  owner: string;
  botLogin: string;
  permissions: Permissions;
  events: string[];
  createdAt: string;
  /** The manifest's `description`, for an App registered from one. */
  description?: string;
}

export interface Installation {
  id: number;
  account: string;
  permissions: Permissions;
  events: string[];
  createdAt: string;
}

export interface Label {
  id: number;
  name: string;
  color: string;
  description: string | null;
  default: boolean;
}

export interface Reaction {
  id: number;
  user: string;
  content: string;
  createdAt: string;
}

export interface Comment {
  id: number;
  repoId: number;
  issueNumber: number;
  user: string;
  body: string;
  createdAt: string;
  updatedAt: string;
  reactions: Reaction[];
  viaApp: boolean;
}

export interface Review {
  id: number;
  user: string;
  body: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'PENDING' | 'DISMISSED';
  commitId: string;
  submittedAt: string;
  comments: ReviewComment[];
}

export interface ReviewComment {
  id: number;
  reviewId: number;
  user: string;
  path: string;
  line: number | null;
  /** First line of a multi-line comment. */
  startLine?: number | null;
  side: 'LEFT' | 'RIGHT';
  body: string;
  commitId: string;
  createdAt: string;
}

export interface PullData {
  head: string;
  /** The head repository's full name: this repository's, or a fork's (forks.ts). */
  headRepo: string;
  base: string;
  headSha: string;
  baseSha: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  /** Who merged it (PUT pulls/{n}/merge). */
  mergedBy?: string;
  reviews: Review[];
  maintainerCanModify: boolean;
}

export interface Issue {
  number: number;
  id: number;
  repoId: number;
  title: string;
  body: string | null;
  user: string;
  state: 'open' | 'closed';
  stateReason: 'completed' | 'not_planned' | 'reopened' | null;
  labels: string[];
  assignees: string[];
  locked: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  reactions: Reaction[];
  /** Present when the issue is a pull request (they share numbers, as on GitHub). */
  pull?: PullData;
}

export interface CheckSuite {
  id: number;
  repoId: number;
  /** Slug of the app the suite belongs to (`baton`, `github-actions`, another app's). */
  app: string;
  /** Actions' suites: the workflow run they hold (each run has its own, completed with it). */
  workflowRunId?: number;
  headSha: string;
  headBranch: string | null;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CheckRun {
  id: number;
  repoId: number;
  suiteId: number;
  name: string;
  headSha: string;
  externalId: string | null;
  detailsUrl: string | null;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: string | null;
  startedAt: string | null;
  completedAt: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotations: unknown[] };
  actions: { label: string; description: string; identifier: string }[];
}

export interface Status {
  id: number;
  repoId: number;
  sha: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  context: string;
  description: string | null;
  targetUrl: string | null;
  creator: string;
  createdAt: string;
  updatedAt: string;
}

/** The owner's GitHub plan: decides plan-gated features such as draft pull requests. */
export type Plan = 'free' | 'pro' | 'team' | 'enterprise';

export type Visibility = 'public' | 'private';

/**
 * Defaults for a new repository: public, on the Free plan. Public because the emulator's
 * anonymous reads (clones, raw GETs) model a public repository; Free because it is the
 * plan with the fewest features, so a test that needs a paid feature must say so.
 */
export const REPO_DEFAULTS: { visibility: Visibility; plan: Plan } = { visibility: 'public', plan: 'free' };

export interface Repo {
  id: number;
  /** The repository's description (null unless a test sets one). */
  description?: string;
  visibility: Visibility;
  plan: Plan;
  owner: string;
  name: string;
  fullName: string;
  defaultBranch: string;
  installationId: number;
  createdAt: string;
  pushedAt: string;
  gitDir: string;
  roles: Map<string, Role>;
  labels: Map<string, Label>;
  issues: Map<number, Issue>;
  nextNumber: number;
  /**
   * Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create
   * and approve pull requests": off by default, as on GitHub.
   */
  actionsCanCreatePullRequests: boolean;
  /** Branches branch protection or a ruleset covers (reported by `GET branches/{branch}`); none unless a test protects one. */
  protectedBranches?: Set<string>;
}

/** The slug of GitHub Actions' app: its suites hold workflow runs, its check runs are jobs. */
export const ACTIONS_APP = 'github-actions';

/**
 * GitHub's clock: the times the emulator stamps (`created_at`, `updated_at`, …) and the `Date`
 * header of its answers. Real time plus what a test moved it on (`emulator.clock.advance`), so a
 * rule measured on GitHub's clock alone (baton's claim pruning) is tested across minutes without
 * waiting them. Token expiry and JWT checks stay on real time: they compare with the caller's
 * clock. Module state, since the stamps are taken where no emulator is at hand: one clock per
 * test process, as GitHub has one; `startEmulator` and `close` set it back.
 */
export class GitHubClock {
  private offsetMs = 0;
  /** Milliseconds since the epoch, on GitHub's clock. */
  now(): number {
    return Date.now() + this.offsetMs;
  }
  /** Moves GitHub's clock on by `ms` (never back: GitHub's stamps only grow). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`GitHub's clock only moves forward, not by ${ms} ms`);
    this.offsetMs += ms;
  }
  reset(): void {
    this.offsetMs = 0;
  }
}

export const githubClock = new GitHubClock();

/** GitHub's timestamps: ISO 8601 without milliseconds, on GitHub's clock. */
export function now(): string {
  return new Date(githubClock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class Store {
  readonly users = new Map<string, User>();
  readonly repos = new Map<string, Repo>();
  readonly installations = new Map<number, Installation>();
  readonly comments = new Map<number, Comment>();
  readonly checkRuns = new Map<number, CheckRun>();
  readonly checkSuites = new Map<number, CheckSuite>();
  readonly statuses: Status[] = [];
  /** The App the emulator serves: baton's from app.yml, or the last one registered from a manifest. */
  app: App;
  /** Apps other than baton that act on repositories (GitHub Actions, a CI app), by slug. */
  private readonly otherApps = new Map<string, App>();
  private lastId = 1000;
  /** Forks that opened pull requests here (forks.ts): full name → repository id. */
  private readonly forkIds = new Map<string, number>();
  /** Installation ids count from 1 and are never reused (a token of a removed installation reaches nothing). */
  private lastInstallationId = 0;

  constructor() {
    const manifest = batonAppManifest();
    this.app = {
      id: 1,
      slug: 'baton',
      name: 'baton',
      clientId: 'Iv1.0000000000000001',
      owner: 'acme',
      botLogin: 'baton[bot]',
      permissions: manifest.permissions,
      events: manifest.events,
      createdAt: now(),
    };
    this.user(this.app.botLogin, 'Bot');
    this.user('github-actions[bot]', 'Bot');
    // GitHub Actions is an app too: its jobs are check runs of app `github-actions` (id 15368 on github.com).
    this.otherApps.set(ACTIONS_APP, { ...this.app, id: 15368, slug: ACTIONS_APP, name: 'GitHub Actions', clientId: 'Iv1.github-actions', owner: 'github', botLogin: 'github-actions[bot]', events: [] });
  }

  /**
   * Makes `app` the App the emulator serves (one registered from a manifest), installed on
   * every account that has a repository here, as the default App is: installations are made
   * afresh with its permissions and events, and the previous App's go away with it.
   */
  serveApp(app: App): void {
    this.app = app;
    this.user(app.botLogin, 'Bot');
    this.installations.clear();
    for (const repo of this.repos.values()) repo.installationId = this.installation(repo.owner).id;
  }

  /** How many comments an issue or pull request has (its `comments` field). */
  commentCount(repoId: number, issueNumber: number): number {
    let n = 0;
    for (const c of this.comments.values()) if (c.repoId === repoId && c.issueNumber === issueNumber) n++;
    return n;
  }

  /** The app by slug; a slug never seen before is another app installed on the repositories (a CI service). */
  appBySlug(slug: string): App {
    if (slug === this.app.slug) return this.app;
    let app = this.otherApps.get(slug);
    if (app === undefined) {
      app = { ...this.app, id: this.nextId(), slug, name: slug, clientId: `Iv1.${slug}`, botLogin: `${slug}[bot]`, events: ['check_run', 'check_suite'] };
      this.otherApps.set(slug, app);
      this.user(app.botLogin, 'Bot');
    }
    return app;
  }

  /** The app an installation token acts for, from its bot login (`<slug>[bot]`). */
  appOfLogin(login: string): App {
    return this.appBySlug(login.replace(/\[bot\]$/, ''));
  }

  /** Ids are unique across all kinds, like GitHub's database ids are for practical purposes. */
  /** The id of a fork, by its full name (made on first use; forks are otherwise not emulated). */
  forkId(fullName: string): number {
    let id = this.forkIds.get(fullName.toLowerCase());
    if (id === undefined) this.forkIds.set(fullName.toLowerCase(), (id = this.nextId()));
    return id;
  }

  nextId(): number {
    this.lastId += 1;
    return this.lastId;
  }

  user(login: string, type?: User['type']): User {
    const key = login.toLowerCase();
    let user = this.users.get(key);
    if (user === undefined) {
      user = { login, id: this.nextId(), type: type ?? (login.endsWith('[bot]') ? 'Bot' : 'User') };
      this.users.set(key, user);
    }
    return user;
  }

  installation(account: string): Installation {
    for (const inst of this.installations.values()) if (inst.account.toLowerCase() === account.toLowerCase()) return inst;
    const inst: Installation = {
      id: ++this.lastInstallationId,
      account,
      permissions: { ...this.app.permissions },
      events: [...this.app.events],
      createdAt: now(),
    };
    this.installations.set(inst.id, inst);
    return inst;
  }

  /** Repositories are looked up case-insensitively, as GitHub does. */
  repo(owner: string, name: string): Repo | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  repoById(id: number): Repo | undefined {
    for (const repo of this.repos.values()) if (repo.id === id) return repo;
    return undefined;
  }

  addRepo(owner: string, name: string, gitDir: string, defaultBranch: string, options: Partial<typeof REPO_DEFAULTS> = {}): Repo {
    this.user(owner, 'Organization');
    const createdAt = now();
    const repo: Repo = {
      id: this.nextId(),
      visibility: options.visibility ?? REPO_DEFAULTS.visibility,
      plan: options.plan ?? REPO_DEFAULTS.plan,
      owner,
      name,
      fullName: `${owner}/${name}`,
      defaultBranch,
      installationId: this.installation(owner).id,
      createdAt,
      pushedAt: createdAt,
      gitDir,
      roles: new Map([[owner.toLowerCase(), 'admin']]),
      labels: new Map(),
      issues: new Map(),
      nextNumber: 1,
      actionsCanCreatePullRequests: false,
    };
    this.repos.set(repo.fullName.toLowerCase(), repo);
    return repo;
  }

  /** Sets a user's role on a repository (what the collaborator-permission endpoint answers). */
  setRole(owner: string, name: string, login: string, role: Role): void {
    const repo = this.repo(owner, name);
    if (repo === undefined) throw new Error(`setRole: no repository ${owner}/${name}`);
    this.user(login);
    repo.roles.set(login.toLowerCase(), role);
  }

  /** What a repository admin does in Settings → Actions → General → Workflow permissions. */
  allowActionsToCreatePullRequests(owner: string, name: string, allowed = true): void {
    const repo = this.repo(owner, name);
    if (repo === undefined) throw new Error(`allowActionsToCreatePullRequests: no repository ${owner}/${name}`);
    repo.actionsCanCreatePullRequests = allowed;
  }

  setVisibility(owner: string, name: string, visibility: Repo['visibility']): void {
    const repo = this.repo(owner, name);
    if (repo === undefined) throw new Error(`setVisibility: no repository ${owner}/${name}`);
    repo.visibility = visibility;
  }

  /** A user's role: a collaborator's own, else `read` on a public repository, `none` on a private one. */
  role(repo: Repo, login: string): Role {
    return repo.roles.get(login.toLowerCase()) ?? (repo.visibility === 'public' ? 'read' : 'none');
  }

  /** Bots and apps (`Copilot`, `renovate[bot]`) are accounts but not users: no collaborator permission. */
  isUser(login: string): boolean {
    return this.user(login).type !== 'Bot';
  }

  label(repo: Repo, name: string, color = 'ededed', description: string | null = null): Label {
    let label = repo.labels.get(name.toLowerCase());
    if (label === undefined) {
      label = { id: this.nextId(), name, color, description, default: false };
      repo.labels.set(name.toLowerCase(), label);
    }
    return label;
  }
}
