/**
 * Store records → GitHub's JSON. One builder per object, shared by REST answers and
 * webhook payloads; the REST schemas and the webhook schemas (which forbid extra
 * properties) both check these shapes, so a field added here must satisfy both.
 */
import type { GitCommit, Person, TreeEntry } from './git.ts';
import type { CheckRun, CheckSuite, Comment, Issue, Label, Reaction, Repo, Review, ReviewComment, Status, Store } from './store.ts';

const REACTIONS = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'eyes', 'rocket'] as const;

function nodeId(prefix: string, id: number | string): string {
  return `${prefix}_${Buffer.from(`emu:${id}`).toString('base64url')}`;
}

export class Shapes {
  constructor(
    private readonly store: Store,
    /** REST base (`http://127.0.0.1:<port>`). */
    readonly api: string,
    /** Web base for html_url; the emulator serves no HTML, but the links are stable. */
    readonly web: string,
  ) {}

  user(login: string) {
    const user = this.store.user(login);
    const url = `${this.api}/users/${encodeURIComponent(user.login)}`;
    return {
      login: user.login,
      id: user.id,
      node_id: nodeId(user.type === 'Bot' ? 'BOT' : 'U', user.id),
      avatar_url: `${this.web}/avatars/${user.id}`,
      gravatar_id: '',
      url,
      html_url: `${this.web}/${encodeURIComponent(user.login)}`,
      followers_url: `${url}/followers`,
      following_url: `${url}/following{/other_user}`,
      gists_url: `${url}/gists{/gist_id}`,
      starred_url: `${url}/starred{/owner}{/repo}`,
      subscriptions_url: `${url}/subscriptions`,
      organizations_url: `${url}/orgs`,
      repos_url: `${url}/repos`,
      events_url: `${url}/events{/privacy}`,
      received_events_url: `${url}/received_events`,
      type: user.type,
      site_admin: false,
    };
  }

  repoUrl(repo: Repo): string {
    return `${this.api}/repos/${repo.fullName}`;
  }

  repoHtml(repo: Repo): string {
    return `${this.web}/${repo.fullName}`;
  }

  /** The repository as webhooks carry it (and the base of the REST shape). */
  repository(repo: Repo) {
    const url = this.repoUrl(repo);
    const openIssues = [...repo.issues.values()].filter((i) => i.state === 'open').length;
    return {
      id: repo.id,
      node_id: nodeId('R', repo.id),
      name: repo.name,
      full_name: repo.fullName,
      private: repo.visibility === 'private',
      owner: this.user(repo.owner),
      html_url: this.repoHtml(repo),
      description: repo.description ?? null,
      fork: false,
      url,
      forks_url: `${url}/forks`,
      keys_url: `${url}/keys{/key_id}`,
      collaborators_url: `${url}/collaborators{/collaborator}`,
      teams_url: `${url}/teams`,
      hooks_url: `${url}/hooks`,
      issue_events_url: `${url}/issues/events{/number}`,
      events_url: `${url}/events`,
      assignees_url: `${url}/assignees{/user}`,
      branches_url: `${url}/branches{/branch}`,
      tags_url: `${url}/tags`,
      blobs_url: `${url}/git/blobs{/sha}`,
      git_tags_url: `${url}/git/tags{/sha}`,
      git_refs_url: `${url}/git/refs{/sha}`,
      trees_url: `${url}/git/trees{/sha}`,
      statuses_url: `${url}/statuses/{sha}`,
      languages_url: `${url}/languages`,
      stargazers_url: `${url}/stargazers`,
      contributors_url: `${url}/contributors`,
      subscribers_url: `${url}/subscribers`,
      subscription_url: `${url}/subscription`,
      commits_url: `${url}/commits{/sha}`,
      git_commits_url: `${url}/git/commits{/sha}`,
      comments_url: `${url}/comments{/number}`,
      issue_comment_url: `${url}/issues/comments{/number}`,
      contents_url: `${url}/contents/{+path}`,
      compare_url: `${url}/compare/{base}...{head}`,
      merges_url: `${url}/merges`,
      archive_url: `${url}/{archive_format}{/ref}`,
      downloads_url: `${url}/downloads`,
      issues_url: `${url}/issues{/number}`,
      pulls_url: `${url}/pulls{/number}`,
      milestones_url: `${url}/milestones{/number}`,
      notifications_url: `${url}/notifications{?since,all,participating}`,
      labels_url: `${url}/labels{/name}`,
      releases_url: `${url}/releases{/id}`,
      deployments_url: `${url}/deployments`,
      created_at: repo.createdAt,
      updated_at: repo.pushedAt,
      pushed_at: repo.pushedAt,
      // The clone URL is the bare repository itself: clones and pushes need no server.
      git_url: `file://${repo.gitDir}`,
      ssh_url: `file://${repo.gitDir}`,
      clone_url: `file://${repo.gitDir}`,
      svn_url: this.repoHtml(repo),
      homepage: null,
      size: 0,
      stargazers_count: 0,
      watchers_count: 0,
      language: null,
      has_issues: true,
      has_projects: false,
      has_downloads: true,
      has_wiki: false,
      has_pages: false,
      has_discussions: false,
      forks_count: 0,
      mirror_url: null,
      archived: false,
      disabled: false,
      open_issues_count: openIssues,
      license: null,
      allow_forking: true,
      is_template: false,
      web_commit_signoff_required: false,
      topics: [],
      visibility: repo.visibility,
      forks: 0,
      open_issues: openIssues,
      watchers: 0,
      default_branch: repo.defaultBranch,
      custom_properties: {},
    };
  }

  /** `GET /repos/{owner}/{repo}`: the webhook shape plus the fields only REST has. */
  fullRepository(repo: Repo) {
    return {
      ...this.repository(repo),
      allow_merge_commit: true,
      allow_squash_merge: true,
      allow_rebase_merge: true,
      allow_auto_merge: false,
      delete_branch_on_merge: false,
      network_count: 0,
      subscribers_count: 0,
    };
  }

  label(repo: Repo, label: Label) {
    return {
      id: label.id,
      node_id: nodeId('LA', label.id),
      url: `${this.repoUrl(repo)}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      color: label.color,
      default: label.default,
      description: label.description,
    };
  }

  reactionRollup(url: string, reactions: Reaction[]) {
    const rollup: Record<string, number | string> = { url, total_count: reactions.length };
    for (const content of REACTIONS) rollup[content] = reactions.filter((r) => r.content === content).length;
    return rollup as { url: string; total_count: number } & Record<(typeof REACTIONS)[number], number>;
  }

  reaction(reaction: Reaction) {
    return { id: reaction.id, node_id: nodeId('REA', reaction.id), user: this.user(reaction.user), content: reaction.content, created_at: reaction.createdAt };
  }

  authorAssociation(repo: Repo, login: string): 'OWNER' | 'COLLABORATOR' | 'MEMBER' | 'CONTRIBUTOR' | 'NONE' {
    if (login.toLowerCase() === repo.owner.toLowerCase()) return 'OWNER';
    const role = repo.roles.get(login.toLowerCase());
    if (role === 'admin' || role === 'maintain') return 'MEMBER';
    if (role === 'write' || role === 'triage') return 'COLLABORATOR';
    return 'NONE';
  }

  /** The app as `performed_via_github_app` and check runs show it (baton unless a slug is given). */
  app(slug = this.store.app.slug) {
    const app = this.store.appBySlug(slug);
    return {
      id: app.id,
      slug: app.slug,
      node_id: nodeId('A', app.id),
      owner: this.user(app.owner),
      name: app.name,
      description: app.description ?? (app === this.store.app ? 'GitHub-native orchestrator for AI coding agents' : app.name),
      external_url: `${this.web}/apps/${app.slug}`,
      html_url: `${this.web}/apps/${app.slug}`,
      created_at: app.createdAt,
      updated_at: app.createdAt,
      permissions: app.permissions,
      events: app.events,
    };
  }

  issue(repo: Repo, issue: Issue) {
    const url = `${this.repoUrl(repo)}/issues/${issue.number}`;
    const html = `${this.repoHtml(repo)}/${issue.pull === undefined ? 'issues' : 'pull'}/${issue.number}`;
    const comments = this.store.commentCount(repo.id, issue.number);
    return {
      url,
      repository_url: this.repoUrl(repo),
      labels_url: `${url}/labels{/name}`,
      comments_url: `${url}/comments`,
      events_url: `${url}/events`,
      html_url: html,
      id: issue.id,
      node_id: nodeId(issue.pull === undefined ? 'I' : 'PR', issue.id),
      number: issue.number,
      title: issue.title,
      user: this.user(issue.user),
      labels: issue.labels.map((name) => this.label(repo, this.store.label(repo, name))),
      state: issue.state,
      locked: issue.locked,
      assignee: issue.assignees[0] === undefined ? null : this.user(issue.assignees[0]),
      assignees: issue.assignees.map((login) => this.user(login)),
      milestone: null,
      comments,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      author_association: this.authorAssociation(repo, issue.user),
      active_lock_reason: null,
      body: issue.body,
      reactions: this.reactionRollup(`${url}/reactions`, issue.reactions),
      timeline_url: `${url}/timeline`,
      performed_via_github_app: null,
      state_reason: issue.stateReason,
      ...(issue.pull === undefined
        ? {}
        : {
            draft: issue.pull.draft,
            pull_request: {
              url: `${this.repoUrl(repo)}/pulls/${issue.number}`,
              html_url: html,
              diff_url: `${html}.diff`,
              patch_url: `${html}.patch`,
              merged_at: issue.pull.mergedAt,
            },
          }),
    };
  }

  comment(repo: Repo, comment: Comment) {
    const url = `${this.repoUrl(repo)}/issues/comments/${comment.id}`;
    const issue = repo.issues.get(comment.issueNumber);
    const kind = issue?.pull === undefined ? 'issues' : 'pull';
    return {
      url,
      html_url: `${this.repoHtml(repo)}/${kind}/${comment.issueNumber}#issuecomment-${comment.id}`,
      issue_url: `${this.repoUrl(repo)}/issues/${comment.issueNumber}`,
      id: comment.id,
      node_id: nodeId('IC', comment.id),
      user: this.user(comment.user),
      created_at: comment.createdAt,
      updated_at: comment.updatedAt,
      author_association: this.authorAssociation(repo, comment.user),
      body: comment.body,
      reactions: this.reactionRollup(`${url}/reactions`, comment.reactions),
      performed_via_github_app: comment.viaApp ? this.app() : null,
    };
  }

  private branchRef(repo: Repo, branch: string, sha: string, headRepo: string = repo.fullName) {
    if (headRepo.toLowerCase() !== repo.fullName.toLowerCase()) {
      const fork = this.fork(repo, headRepo);
      return { label: `${fork.owner.login}:${branch}`, ref: branch, sha, user: fork.owner, repo: fork };
    }
    return { label: `${repo.owner}:${branch}`, ref: branch, sha, user: this.user(repo.owner), repo: this.repository(repo) };
  }

  /** A fork of `repo` (forks.ts): this repository's shape under the fork's name, owner and id, `fork: true`. */
  fork(repo: Repo, fullName: string) {
    const [owner, name] = fullName.split('/') as [string, string];
    const id = this.store.forkId(fullName);
    const base = this.repository(repo);
    const swap = (v: unknown): unknown => (typeof v === 'string' ? v.split(`/${repo.fullName}`).join(`/${fullName}`) : v);
    const renamed = Object.fromEntries(Object.entries(base).map(([k, v]) => [k, swap(v)])) as typeof base;
    return { ...renamed, id, node_id: nodeId('R', id), name, full_name: fullName, owner: this.user(owner), fork: true };
  }

  /** `pull-request-simple` (lists): no counts. */
  pullSimple(repo: Repo, issue: Issue) {
    const pull = issue.pull!;
    const url = `${this.repoUrl(repo)}/pulls/${issue.number}`;
    const html = `${this.repoHtml(repo)}/pull/${issue.number}`;
    const issueUrl = `${this.repoUrl(repo)}/issues/${issue.number}`;
    return {
      url,
      id: issue.id,
      node_id: nodeId('PR', issue.id),
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      issue_url: issueUrl,
      number: issue.number,
      state: issue.state,
      locked: issue.locked,
      title: issue.title,
      user: this.user(issue.user),
      body: issue.body,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      closed_at: issue.closedAt,
      merged_at: pull.mergedAt,
      merge_commit_sha: pull.mergeCommitSha,
      assignee: issue.assignees[0] === undefined ? null : this.user(issue.assignees[0]),
      assignees: issue.assignees.map((login) => this.user(login)),
      requested_reviewers: [],
      requested_teams: [],
      labels: issue.labels.map((name) => this.label(repo, this.store.label(repo, name))),
      milestone: null,
      draft: pull.draft,
      commits_url: `${url}/commits`,
      review_comments_url: `${url}/comments`,
      review_comment_url: `${this.repoUrl(repo)}/pulls/comments{/number}`,
      comments_url: `${issueUrl}/comments`,
      statuses_url: `${this.repoUrl(repo)}/statuses/${pull.headSha}`,
      head: this.branchRef(repo, pull.head, pull.headSha, pull.headRepo),
      base: this.branchRef(repo, pull.base, pull.baseSha),
      _links: {
        self: { href: url },
        html: { href: html },
        issue: { href: issueUrl },
        comments: { href: `${issueUrl}/comments` },
        review_comments: { href: `${url}/comments` },
        review_comment: { href: `${this.repoUrl(repo)}/pulls/comments{/number}` },
        commits: { href: `${url}/commits` },
        statuses: { href: `${this.repoUrl(repo)}/statuses/${pull.headSha}` },
      },
      author_association: this.authorAssociation(repo, issue.user),
      auto_merge: null,
      active_lock_reason: null,
    };
  }

  /** `pull-request` (get, create, update, webhooks): with counts, computed by the caller from git. */
  pull(repo: Repo, issue: Issue, counts: { commits: number; additions: number; deletions: number; changedFiles: number; mergeable: boolean | null }) {
    const pull = issue.pull!;
    const comments = this.store.commentCount(repo.id, issue.number);
    return {
      ...this.pullSimple(repo, issue),
      merged: pull.merged,
      mergeable: counts.mergeable,
      rebaseable: counts.mergeable,
      mergeable_state: counts.mergeable === null ? 'unknown' : counts.mergeable ? 'clean' : 'dirty',
      merged_by: pull.mergedBy === undefined ? null : this.user(pull.mergedBy),
      comments,
      review_comments: pull.reviews.reduce((n, r) => n + r.comments.length, 0),
      maintainer_can_modify: pull.maintainerCanModify,
      commits: counts.commits,
      additions: counts.additions,
      deletions: counts.deletions,
      changed_files: counts.changedFiles,
    };
  }

  review(repo: Repo, issue: Issue, review: Review) {
    const pullUrl = `${this.repoUrl(repo)}/pulls/${issue.number}`;
    const html = `${this.repoHtml(repo)}/pull/${issue.number}#pullrequestreview-${review.id}`;
    return {
      id: review.id,
      node_id: nodeId('PRR', review.id),
      user: this.user(review.user),
      body: review.body,
      state: review.state,
      commit_id: review.commitId,
      html_url: html,
      pull_request_url: pullUrl,
      _links: { html: { href: html }, pull_request: { href: pullUrl } },
      submitted_at: review.submittedAt,
      author_association: this.authorAssociation(repo, review.user),
    };
  }

  /** `now`: where the comment stands on the pull request's head (routes/pulls.ts); absent, where it was made. */
  reviewComment(repo: Repo, issue: Issue, comment: ReviewComment, now?: { commitId: string; outdated: boolean }) {
    // An outdated comment has no line on the head (GitHub sends null; the schema lists `line` as an integer, so it is left out).
    const line = now?.outdated ? undefined : (comment.line ?? undefined);
    const url = `${this.repoUrl(repo)}/pulls/comments/${comment.id}`;
    const pullUrl = `${this.repoUrl(repo)}/pulls/${issue.number}`;
    const html = `${this.repoHtml(repo)}/pull/${issue.number}#discussion_r${comment.id}`;
    return {
      url,
      pull_request_review_id: comment.reviewId,
      id: comment.id,
      node_id: nodeId('PRRC', comment.id),
      diff_hunk: '',
      path: comment.path,
      commit_id: now?.commitId ?? comment.commitId,
      original_commit_id: comment.commitId,
      user: this.user(comment.user),
      body: comment.body,
      created_at: comment.createdAt,
      updated_at: comment.createdAt,
      html_url: html,
      pull_request_url: pullUrl,
      author_association: this.authorAssociation(repo, comment.user),
      _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullUrl } },
      line,
      original_line: comment.line ?? undefined,
      ...(comment.startLine ? { start_line: line === undefined ? null : comment.startLine, original_start_line: comment.startLine, start_side: comment.side } : {}),
      side: comment.side,
      subject_type: comment.line === null ? 'file' : 'line',
    };
  }

  private pullRefs(repo: Repo, sha: string) {
    return [...repo.issues.values()]
      .filter((i) => i.pull !== undefined && i.state === 'open' && i.pull.headSha === sha)
      .map((i) => ({
        id: i.id,
        number: i.number,
        url: `${this.repoUrl(repo)}/pulls/${i.number}`,
        head: { ref: i.pull!.head, sha: i.pull!.headSha, repo: { id: repo.id, url: this.repoUrl(repo), name: repo.name } },
        base: { ref: i.pull!.base, sha: i.pull!.baseSha, repo: { id: repo.id, url: this.repoUrl(repo), name: repo.name } },
      }));
  }

  checkSuite(repo: Repo, suite: CheckSuite, headCommit: GitCommit | null) {
    const url = `${this.repoUrl(repo)}/check-suites/${suite.id}`;
    const runs = [...this.store.checkRuns.values()].filter((r) => r.suiteId === suite.id).length;
    return {
      id: suite.id,
      node_id: nodeId('CS', suite.id),
      head_branch: suite.headBranch,
      head_sha: suite.headSha,
      status: suite.status,
      conclusion: suite.conclusion,
      url,
      before: null,
      after: suite.headSha,
      pull_requests: this.pullRefs(repo, suite.headSha),
      app: this.app(suite.app),
      repository: this.repository(repo),
      created_at: suite.createdAt,
      updated_at: suite.updatedAt,
      head_commit:
        headCommit === null
          ? { id: suite.headSha, tree_id: suite.headSha, message: '', timestamp: suite.createdAt, author: null, committer: null }
          : this.simpleCommit(headCommit),
      latest_check_runs_count: runs,
      check_runs_url: `${url}/check-runs`,
      rerequestable: true,
      runs_rerequestable: true,
    };
  }

  simpleCommit(commit: GitCommit) {
    return {
      id: commit.sha,
      tree_id: commit.tree,
      message: commit.message,
      timestamp: commit.committer.date,
      author: { name: commit.author.name, email: commit.author.email },
      committer: { name: commit.committer.name, email: commit.committer.email },
    };
  }

  checkRun(repo: Repo, run: CheckRun) {
    const url = `${this.repoUrl(repo)}/check-runs/${run.id}`;
    return {
      id: run.id,
      node_id: nodeId('CR', run.id),
      head_sha: run.headSha,
      external_id: run.externalId,
      url,
      html_url: `${this.repoHtml(repo)}/runs/${run.id}`,
      details_url: run.detailsUrl,
      status: run.status,
      conclusion: run.conclusion,
      started_at: run.startedAt,
      completed_at: run.completedAt,
      output: {
        title: run.output.title,
        summary: run.output.summary,
        text: run.output.text,
        annotations_count: run.output.annotations.length,
        annotations_url: `${url}/annotations`,
      },
      name: run.name,
      check_suite: { id: run.suiteId },
      app: this.app(this.store.checkSuites.get(run.suiteId)?.app),
      pull_requests: this.pullRefs(repo, run.headSha),
    };
  }

  status(repo: Repo, status: Status) {
    return {
      url: `${this.repoUrl(repo)}/statuses/${status.sha}`,
      avatar_url: `${this.web}/avatars/${this.store.user(status.creator).id}`,
      id: status.id,
      node_id: nodeId('SC', status.id),
      state: status.state,
      description: status.description,
      target_url: status.targetUrl,
      context: status.context,
      created_at: status.createdAt,
      updated_at: status.updatedAt,
      creator: this.user(status.creator),
    };
  }

  gitPerson(person: Person) {
    return { name: person.name, email: person.email, date: person.date };
  }

  gitCommit(repo: Repo, commit: GitCommit) {
    return {
      sha: commit.sha,
      node_id: nodeId('C', commit.sha),
      url: `${this.repoUrl(repo)}/git/commits/${commit.sha}`,
      html_url: `${this.repoHtml(repo)}/commit/${commit.sha}`,
      author: this.gitPerson(commit.author),
      committer: this.gitPerson(commit.committer),
      tree: { sha: commit.tree, url: `${this.repoUrl(repo)}/git/trees/${commit.tree}` },
      message: commit.message.replace(/\n$/, ''),
      parents: commit.parents.map((sha) => ({ sha, url: `${this.repoUrl(repo)}/git/commits/${sha}`, html_url: `${this.repoHtml(repo)}/commit/${sha}` })),
      verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
    };
  }

  /** The REST `commit` (commits, compare, merges): git data plus GitHub users (none here). */
  commit(repo: Repo, commit: GitCommit, files?: ReturnType<Shapes['diffEntry']>[]) {
    const url = `${this.repoUrl(repo)}/commits/${commit.sha}`;
    const git = this.gitCommit(repo, commit);
    return {
      url,
      sha: commit.sha,
      node_id: git.node_id,
      html_url: git.html_url,
      comments_url: `${url}/comments`,
      commit: {
        url: git.url,
        author: git.author,
        committer: git.committer,
        message: git.message,
        comment_count: 0,
        tree: git.tree,
        verification: git.verification,
      },
      author: null,
      committer: null,
      parents: commit.parents.map((sha) => ({ sha, url: `${this.repoUrl(repo)}/commits/${sha}`, html_url: `${this.repoHtml(repo)}/commit/${sha}` })),
      ...(files === undefined
        ? {}
        : {
            files,
            stats: {
              additions: files.reduce((n, f) => n + f.additions, 0),
              deletions: files.reduce((n, f) => n + f.deletions, 0),
              total: files.reduce((n, f) => n + f.changes, 0),
            },
          }),
    };
  }

  diffEntry(repo: Repo, ref: string, file: { path: string; status: string; additions: number; deletions: number; sha: string }) {
    const path = file.path.split('/').map(encodeURIComponent).join('/');
    return {
      sha: file.sha,
      filename: file.path,
      status: file.status as 'added' | 'removed' | 'modified',
      additions: file.additions,
      deletions: file.deletions,
      changes: file.additions + file.deletions,
      blob_url: `${this.repoHtml(repo)}/blob/${ref}/${path}`,
      raw_url: `${this.repoHtml(repo)}/raw/${ref}/${path}`,
      contents_url: `${this.repoUrl(repo)}/contents/${path}?ref=${ref}`,
    };
  }

  gitRef(repo: Repo, ref: string, sha: string, type = 'commit') {
    return {
      ref,
      node_id: nodeId('REF', `${repo.id}:${ref}`),
      url: `${this.repoUrl(repo)}/git/${ref}`,
      object: { type, sha, url: `${this.repoUrl(repo)}/git/${type}s/${sha}` },
    };
  }

  treeEntry(repo: Repo, entry: TreeEntry) {
    return {
      path: entry.path,
      mode: entry.mode,
      type: entry.type,
      sha: entry.sha,
      ...(entry.size === undefined ? {} : { size: entry.size }),
      url: `${this.repoUrl(repo)}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`,
    };
  }

  /** A `contents` entry: a file with its content, or a listing item without it. */
  content(repo: Repo, ref: string, entry: TreeEntry, content?: Buffer) {
    const path = entry.path.split('/').map(encodeURIComponent).join('/');
    const url = `${this.repoUrl(repo)}/contents/${path}?ref=${encodeURIComponent(ref)}`;
    const type = entry.type === 'tree' ? 'dir' : entry.type === 'commit' ? 'submodule' : entry.mode === '120000' ? 'symlink' : 'file';
    const gitUrl = `${this.repoUrl(repo)}/git/${entry.type === 'tree' ? 'trees' : 'blobs'}/${entry.sha}`;
    const html = `${this.repoHtml(repo)}/${entry.type === 'tree' ? 'tree' : 'blob'}/${ref}/${path}`;
    return {
      type,
      name: entry.path.split('/').pop()!,
      path: entry.path,
      sha: entry.sha,
      size: entry.size ?? 0,
      url,
      html_url: html,
      git_url: gitUrl,
      download_url: type === 'file' ? `${this.repoHtml(repo)}/raw/${ref}/${path}` : null,
      _links: { self: url, git: gitUrl, html },
      ...(content === undefined ? {} : { content: chunked(content.toString('base64')), encoding: 'base64' }),
    };
  }

  integration(slug = this.store.app.slug) {
    return { ...this.app(slug), client_id: this.store.appBySlug(slug).clientId, installations_count: this.store.installations.size };
  }

  installation(id: number) {
    const inst = this.store.installations.get(id)!;
    const account = this.store.user(inst.account);
    return {
      id: inst.id,
      account: this.user(account.login),
      repository_selection: 'all' as const,
      access_tokens_url: `${this.api}/app/installations/${inst.id}/access_tokens`,
      repositories_url: `${this.api}/installation/repositories`,
      html_url: `${this.web}/organizations/${account.login}/settings/installations/${inst.id}`,
      app_id: this.store.app.id,
      app_slug: this.store.app.slug,
      client_id: this.store.app.clientId,
      target_id: account.id,
      target_type: account.type === 'Organization' ? 'Organization' : 'User',
      permissions: inst.permissions,
      events: inst.events,
      created_at: inst.createdAt,
      updated_at: inst.createdAt,
      single_file_name: null,
      has_multiple_single_files: false,
      single_file_paths: [],
      suspended_by: null,
      suspended_at: null,
    };
  }
}

/** GitHub wraps base64 content at 60 characters. */
function chunked(base64: string): string {
  return `${base64.replace(/(.{60})/g, '$1\n')}\n`;
}
