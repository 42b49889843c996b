/**
 * What happens when a branch moves, whether by `git push` to the bare repository (its
 * post-receive hook reports here) or through the refs/contents/merges API: a `push`
 * webhook, `create`/`delete` when a branch or tag appears or goes, and
 * `pull_request.synchronize` for open pull requests whose head moved.
 *
 * Only branches and tags have webhooks: `push` is "one or more commits are pushed to a
 * repository branch or tag", `create`/`delete` "a Git branch or tag is created/deleted"
 * (docs "Webhook events and payloads"); a ref elsewhere (`refs/baton/leases/...`,
 * `refs/pull/...`) sends nothing (reported: hashbang/git-signatures#7).
 */
import { checkSuitesOf } from './check-suites.ts';
import type { Emulator } from './emulator.ts';
import { EMPTY_TREE, ZERO_SHA } from './git.ts';
import { pullJson } from './routes/pulls.ts';
import { now, type Repo } from './store.ts';

export interface RefUpdate {
  before: string;
  after: string;
  /** Full name: `refs/heads/main`. */
  ref: string;
}

/** The post-receive hook's body: it forwards git's `old new ref` lines and waits for the answer. */
export function pushHookScript(): string {
  return [
    "let input = '';",
    "process.stdin.setEncoding('utf8');",
    "process.stdin.on('data', (chunk) => { input += chunk; });",
    "process.stdin.on('end', async () => {",
    "  try { await fetch(process.argv[2], { method: 'POST', body: input }); }",
    "  catch (error) { console.error('emulator push hook: ' + error.message); }",
    '});',
    '',
  ].join('\n');
}

export async function onPush(emulator: Emulator, repo: Repo, updates: RefUpdate[], pusher: string | undefined): Promise<void> {
  const git = emulator.git(repo.owner, repo.name);
  repo.pushedAt = now();
  const sender = pusher ?? repo.owner;
  for (const update of updates) {
    const kind = refKind(update.ref);
    // A ref outside branches and tags: no webhook; whether Actions runs `on: push` for it is a reading.
    const custom = kind === undefined && !update.ref.startsWith('refs/pull/') && emulator.readings.customRefPushRuns === 'fires';
    if (kind === undefined && !custom) continue;
    const created = update.before === ZERO_SHA;
    const deleted = update.after === ZERO_SHA;
    const forced = !created && !deleted && !(await git.isAncestor(update.before, update.after));
    // A new branch lists the commits no other branch has, as GitHub does.
    const others = created ? (await git.listRefs('refs/heads/')).filter((r) => r.ref !== update.ref).map((r) => r.sha) : [];
    const shas = deleted ? [] : await git.revList(created ? others : [update.before], update.after, 20);
    const commits = [];
    for (const sha of shas) {
      const commit = await git.readCommit(sha);
      const files = await git.diff(commit.parents[0] ?? EMPTY_TREE, sha);
      commits.push({
        id: sha,
        tree_id: commit.tree,
        distinct: true,
        message: commit.message.replace(/\n$/, ''),
        timestamp: commit.committer.date,
        url: `${emulator.shapes.repoHtml(repo)}/commit/${sha}`,
        author: { name: commit.author.name, email: commit.author.email, date: commit.author.date, username: undefined },
        committer: { name: commit.committer.name, email: commit.committer.email, date: commit.committer.date },
        added: files.filter((f) => f.status === 'added').map((f) => f.path),
        removed: files.filter((f) => f.status === 'removed').map((f) => f.path),
        modified: files.filter((f) => f.status === 'modified').map((f) => f.path),
      });
    }
    for (const c of commits) delete (c.author as { username?: string }).username;
    const repository = { ...emulator.shapes.repository(repo), created_at: Math.floor(Date.parse(repo.createdAt) / 1000), pushed_at: Math.floor(Date.now() / 1000) };
    (custom ? emulator.webhooks.notify.bind(emulator.webhooks) : emulator.webhooks.emit.bind(emulator.webhooks))(
      'push',
      {
        ref: update.ref,
        before: update.before,
        after: update.after,
        created,
        deleted,
        forced,
        base_ref: null,
        compare: `${emulator.shapes.repoHtml(repo)}/compare/${update.before.slice(0, 12)}...${update.after.slice(0, 12)}`,
        commits,
        head_commit: commits.at(-1) ?? null,
        repository,
        pusher: { name: sender, email: null },
      },
      { owner: repo.owner, repo: repo.name, sender },
    );
    if (custom) continue;
    if (created || deleted) {
      const name = update.ref.replace(/^refs\/(heads|tags)\//, '');
      const common = { ref: name, ref_type: kind, pusher_type: 'user' };
      if (created) emulator.webhooks.emit('create', { ...common, master_branch: repo.defaultBranch, description: null }, { owner: repo.owner, repo: repo.name, sender });
      else emulator.webhooks.emit('delete', common, { owner: repo.owner, repo: repo.name, sender });
    }

    if (!update.ref.startsWith('refs/heads/')) continue;
    const branch = update.ref.slice('refs/heads/'.length);
    if (!deleted) checkSuitesOf(emulator).notePush(repo, update.after, branch);
    for (const issue of repo.issues.values()) {
      const pull = issue.pull;
      if (pull === undefined || issue.state !== 'open') continue;
      if (pull.base === branch && !deleted) pull.baseSha = update.after;
      if (pull.head !== branch || deleted) continue;
      const before = pull.headSha;
      pull.headSha = update.after;
      issue.updatedAt = now();
      emulator.webhooks.emit(
        'pull_request',
        { action: 'synchronize', number: issue.number, before, after: update.after, pull_request: await pullJson(emulator, repo, issue) },
        { owner: repo.owner, repo: repo.name, sender },
      );
    }
  }
}

/** `branch` or `tag` for the refs GitHub sends webhooks about; undefined for any other ref. */
export function refKind(ref: string): 'branch' | 'tag' | undefined {
  if (ref.startsWith('refs/heads/')) return 'branch';
  if (ref.startsWith('refs/tags/')) return 'tag';
  return undefined;
}
