/**
 * The emulator's state outside git: users, the app and its installations, and per
 * repository the issues, pull requests, comments, labels, reactions, check runs,
 * statuses and reviews. Plain records; shapes.ts turns them into GitHub's JSON.
 * Git objects and refs are never copied here: they live in the bare repository.
 */
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
  side: 'LEFT' | 'RIGHT';
  body: string;
  commitId: string;
  createdAt: string;
}

export interface PullData {
  head: string;
  /** The head repository's full name (forks) — always this repository here. */
  headRepo: string;
  base: string;
  headSha: string;
  baseSha: string;
  draft: boolean;
  merged: boolean;
  mergedAt: string | null;
  mergeCommitSha: string | null;
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
  app: boolean;
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

export interface Repo {
  id: number;
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
  /** Who may read it: on a public repository everyone reads (and the permission API says so). */
  visibility: 'private' | 'public';
}

/** GitHub's timestamps: ISO 8601 without milliseconds. */
export function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class Store {
  readonly users = new Map<string, User>();
  readonly repos = new Map<string, Repo>();
  readonly installations = new Map<number, Installation>();
  readonly comments = new Map<number, Comment>();
  readonly checkRuns = new Map<number, CheckRun>();
  readonly checkSuites = new Map<number, CheckSuite>();
  readonly statuses: Status[] = [];
  readonly app: App;
  private lastId = 1000;

  constructor() {
    const permissions: Permissions = {
      actions: 'write',
      checks: 'write',
      contents: 'write',
      issues: 'write',
      metadata: 'read',
      pull_requests: 'write',
      statuses: 'write',
      workflows: 'write',
    };
    this.app = {
      id: 1,
      slug: 'baton',
      name: 'baton',
      clientId: 'Iv1.0000000000000001',
      owner: 'acme',
      botLogin: 'baton[bot]',
      permissions,
      events: ['check_run', 'check_suite', 'issue_comment', 'issues', 'pull_request', 'pull_request_review', 'push', 'status', 'workflow_job', 'workflow_run'],
      createdAt: now(),
    };
    this.user(this.app.botLogin, 'Bot');
    this.user('github-actions[bot]', 'Bot');
  }

  /** Ids are unique across all kinds, like GitHub's database ids are for practical purposes. */
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
      id: this.installations.size + 1,
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

  addRepo(owner: string, name: string, gitDir: string, defaultBranch: string): Repo {
    this.user(owner, 'Organization');
    const createdAt = now();
    const repo: Repo = {
      id: this.nextId(),
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
      visibility: 'private',
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
