/**
 * Bare git repositories on disk, driven through git's plumbing commands. The API's
 * blobs, trees, commits and refs are the repository's own, so a clone sees what the
 * API wrote and a push is visible through the API. Identity and configuration come
 * from the environment only: a developer's global git config never leaks in.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface Person {
  name: string;
  email: string;
  /** ISO 8601 */
  date: string;
}

export interface GitCommit {
  sha: string;
  tree: string;
  parents: string[];
  author: Person;
  committer: Person;
  message: string;
}

export interface TreeEntry {
  mode: string;
  type: 'blob' | 'tree' | 'commit';
  sha: string;
  path: string;
  size?: number;
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export const ZERO_SHA = '0000000000000000000000000000000000000000';
/** The empty tree: what a root commit is diffed against. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
export const EMULATOR_PERSON = { name: 'GitHub', email: 'noreply@github.com' };

/** The environment every git command runs with. */
export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: EMULATOR_PERSON.name,
    GIT_AUTHOR_EMAIL: EMULATOR_PERSON.email,
    GIT_COMMITTER_NAME: EMULATOR_PERSON.name,
    GIT_COMMITTER_EMAIL: EMULATOR_PERSON.email,
    LC_ALL: 'C',
    ...extra,
  };
}

/** Runs git in `dir`; resolves stdout, rejects with GitError (stderr kept) on a non-zero exit. */
export function git(dir: string, args: string[], options: { input?: string | Buffer; env?: Record<string, string>; allowFail?: boolean } = {}): Promise<{ stdout: Buffer; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: dir, env: gitEnv(options.env), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const stdout = Buffer.concat(out);
      if (code !== 0 && options.allowFail !== true) {
        const stderr = Buffer.concat(err).toString('utf8');
        reject(new GitError(`git ${args.join(' ')} failed (${code}): ${stderr.trim()}`, code ?? -1, stderr));
      } else {
        resolve({ stdout, code: code ?? 0 });
      }
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

async function text(dir: string, args: string[], input?: string | Buffer): Promise<string> {
  return (await git(dir, args, input === undefined ? {} : { input })).stdout.toString('utf8').trim();
}

function personEnv(prefix: 'AUTHOR' | 'COMMITTER', person: Partial<Person> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  if (person?.name !== undefined) env[`GIT_${prefix}_NAME`] = person.name;
  if (person?.email !== undefined) env[`GIT_${prefix}_EMAIL`] = person.email;
  if (person?.date !== undefined) env[`GIT_${prefix}_DATE`] = person.date;
  return env;
}

function parsePerson(line: string): Person {
  const m = /^(.*) <(.*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (m === null) return { name: line, email: '', date: new Date(0).toISOString() };
  return { name: m[1]!, email: m[2]!, date: new Date(Number(m[3]) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') };
}

/** One bare repository. */
export class GitRepo {
  constructor(readonly dir: string) {}

  static async init(dir: string, defaultBranch: string): Promise<GitRepo> {
    await mkdir(dir, { recursive: true });
    await git(dir, ['init', '--bare', '--quiet', `--initial-branch=${defaultBranch}`]);
    return new GitRepo(dir);
  }

  /** Installs a post-receive hook so pushes over the file URL reach the emulator. */
  async installHook(script: string): Promise<void> {
    const path = join(this.dir, 'hooks', 'post-receive');
    await writeFile(path, script);
    await chmod(path, 0o755);
  }

  async hashBlob(content: Buffer): Promise<string> {
    return text(this.dir, ['hash-object', '-w', '--stdin'], content);
  }

  /** The object's type, or null when it does not exist. */
  async type(sha: string): Promise<string | null> {
    if (!/^[0-9a-f]{4,40}$/.test(sha)) return null;
    const { stdout, code } = await git(this.dir, ['cat-file', '-t', sha], { allowFail: true });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  async readBlob(sha: string): Promise<Buffer> {
    return (await git(this.dir, ['cat-file', 'blob', sha])).stdout;
  }

  async readCommit(sha: string): Promise<GitCommit> {
    const raw = await text(this.dir, ['cat-file', 'commit', sha]);
    const split = raw.indexOf('\n\n');
    const head = split === -1 ? raw : raw.slice(0, split);
    const message = split === -1 ? '' : raw.slice(split + 2);
    const commit: GitCommit = { sha, tree: '', parents: [], author: parsePerson(''), committer: parsePerson(''), message };
    for (const line of head.split('\n')) {
      const space = line.indexOf(' ');
      const key = line.slice(0, space);
      const value = line.slice(space + 1);
      if (key === 'tree') commit.tree = value;
      else if (key === 'parent') commit.parents.push(value);
      else if (key === 'author') commit.author = parsePerson(value);
      else if (key === 'committer') commit.committer = parsePerson(value);
    }
    // `cat-file` keeps the message's trailing newline; text() trimmed the whole output.
    commit.message = message.endsWith('\n') ? message : `${message}\n`;
    return commit;
  }

  /** Entries of a tree; `recursive` lists every blob and subtree (like `?recursive=1`). */
  async lsTree(treeish: string, recursive = false, path?: string): Promise<TreeEntry[]> {
    const args = ['ls-tree', '-l', '-z', ...(recursive ? ['-r', '-t'] : []), treeish];
    if (path !== undefined) args.push('--', path);
    const { stdout } = await git(this.dir, args);
    return stdout
      .toString('utf8')
      .split('\0')
      .filter((line) => line !== '')
      .map((line) => {
        const tab = line.indexOf('\t');
        const [mode, type, sha, size] = line.slice(0, tab).split(/\s+/) as [string, TreeEntry['type'], string, string];
        const entry: TreeEntry = { mode, type, sha, path: line.slice(tab + 1) };
        if (size !== '-') entry.size = Number(size);
        return entry;
      });
  }

  /**
   * Writes a tree: `base` (a tree sha) with `changes` applied. A change with sha null
   * deletes the path; nested paths create the directories between.
   */
  async writeTree(base: string | undefined, changes: { path: string; mode: string; type: string; sha: string | null }[]): Promise<string> {
    const index = join(this.dir, `index-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const env = { GIT_INDEX_FILE: index };
    try {
      if (base !== undefined) await git(this.dir, ['read-tree', base], { env });
      else await git(this.dir, ['read-tree', '--empty'], { env });
      const lines: string[] = [];
      for (const change of changes) {
        if (change.sha === null) {
          lines.push(`0 ${ZERO_SHA}\t${change.path}`);
          // Deleting a directory removes everything below it.
          for (const entry of base === undefined ? [] : await this.lsTree(base, true, change.path)) {
            if (entry.type !== 'tree' && entry.path.startsWith(`${change.path}/`)) lines.push(`0 ${ZERO_SHA}\t${entry.path}`);
          }
        } else if (change.type === 'tree') {
          await git(this.dir, ['read-tree', `--prefix=${change.path}/`, change.sha], { env });
        } else {
          lines.push(`${change.mode} ${change.sha}\t${change.path}`);
        }
      }
      if (lines.length > 0) await git(this.dir, ['update-index', '--index-info'], { env, input: `${lines.join('\n')}\n` });
      return (await git(this.dir, ['write-tree'], { env })).stdout.toString('utf8').trim();
    } finally {
      await rm(index, { force: true });
    }
  }

  async commitTree(tree: string, parents: string[], message: string, author?: Partial<Person>, committer?: Partial<Person>): Promise<string> {
    const args = ['commit-tree', tree];
    for (const parent of parents) args.push('-p', parent);
    const env = { ...personEnv('AUTHOR', author), ...personEnv('COMMITTER', committer ?? author) };
    return (await git(this.dir, args, { input: message, env })).stdout.toString('utf8').trim();
  }

  /** The sha a full ref name points to, or null. */
  async resolveRef(ref: string): Promise<string | null> {
    const { stdout, code } = await git(this.dir, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { allowFail: true });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  /** Full ref names with their shas, optionally only under `prefix` (`refs/heads/`). */
  async listRefs(prefix = 'refs/'): Promise<{ ref: string; sha: string; type: string }[]> {
    const out = await text(this.dir, ['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)', prefix]);
    return out === ''
      ? []
      : out.split('\n').map((line) => {
          const [ref, sha, type] = line.split(' ') as [string, string, string];
          return { ref, sha, type };
        });
  }

  /** The branches whose history contains `sha` (in name order), with their heads. */
  async branchesContaining(sha: string): Promise<{ name: string; sha: string }[]> {
    const out = await text(this.dir, ['for-each-ref', '--contains', sha, '--format=%(refname:lstrip=2) %(objectname)', 'refs/heads/']);
    return out === '' ? [] : out.split('\n').map((line) => ({ name: line.slice(0, line.lastIndexOf(' ')), sha: line.slice(line.lastIndexOf(' ') + 1) }));
  }

  /** Moves a ref; `expected` makes it a compare-and-swap (ZERO_SHA: must not exist). */
  async updateRef(ref: string, sha: string, expected?: string): Promise<void> {
    await git(this.dir, ['update-ref', ref, sha, ...(expected === undefined ? [] : [expected])]);
  }

  async deleteRef(ref: string): Promise<void> {
    await git(this.dir, ['update-ref', '-d', ref]);
  }

  /** The refs whose commit has `sha` in its history (the commit itself included). */
  async refsContaining(sha: string): Promise<string[]> {
    const out = await text(this.dir, ['for-each-ref', '--format=%(refname)', '--contains', sha, 'refs/']);
    return out === '' ? [] : out.split('\n');
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const { code } = await git(this.dir, ['merge-base', '--is-ancestor', ancestor, descendant], { allowFail: true });
    return code === 0;
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const { stdout, code } = await git(this.dir, ['merge-base', a, b], { allowFail: true });
    return code === 0 ? stdout.toString('utf8').trim() : null;
  }

  /** A three-way merge without a worktree: the merged tree, or the conflicting paths. */
  async mergeTree(base: string, head: string): Promise<{ tree: string } | { conflicts: string[] }> {
    const { stdout, code } = await git(this.dir, ['merge-tree', '--write-tree', '--name-only', '--no-messages', base, head], { allowFail: true });
    const lines = stdout.toString('utf8').split('\n').filter((l) => l !== '');
    if (code === 0) return { tree: lines[0]! };
    if (code === 1) return { conflicts: lines.slice(1) };
    throw new GitError(`git merge-tree failed (${code})`, code, '');
  }

  /** Commits reachable from `head` and from none of `exclude`, oldest first (newest `limit`). */
  async revList(exclude: string | string[] | null, head: string, limit = 250): Promise<string[]> {
    const excluded = exclude === null ? [] : Array.isArray(exclude) ? exclude : [exclude];
    const out = await text(this.dir, ['rev-list', '--reverse', `--max-count=${limit}`, head, ...excluded.map((sha) => `^${sha}`)]);
    return out === '' ? [] : out.split('\n');
  }

  async countCommits(base: string, head: string): Promise<number> {
    return Number(await text(this.dir, ['rev-list', '--count', `${base}..${head}`]));
  }

  /** Changed files between two commits with line counts. */
  async diff(base: string, head: string): Promise<{ path: string; previousPath?: string; status: string; additions: number; deletions: number; sha: string }[]> {
    const numstat = await text(this.dir, ['diff', '--numstat', '-z', '--no-renames', base, head]);
    const counts = new Map<string, [number, number]>();
    for (const rec of numstat.split('\0').filter((l) => l !== '')) {
      const [add, del, path] = rec.split('\t') as [string, string, string];
      counts.set(path, [add === '-' ? 0 : Number(add), del === '-' ? 0 : Number(del)]);
    }
    const raw = await text(this.dir, ['diff', '--raw', '-z', '--no-renames', '--no-abbrev', base, head]);
    const parts = raw.split('\0').filter((l) => l !== '');
    const files = [];
    for (let i = 0; i + 1 < parts.length; i += 2) {
      const meta = parts[i]!.split(' ');
      const path = parts[i + 1]!;
      const letter = meta[4] ?? 'M';
      const status = letter === 'A' ? 'added' : letter === 'D' ? 'removed' : 'modified';
      const [additions, deletions] = counts.get(path) ?? [0, 0];
      files.push({ path, status, additions, deletions, sha: letter === 'D' ? meta[2]! : meta[3]! });
    }
    return files;
  }

  /**
   * The new-file line ranges (first, last) of a file's hunks between two commits, with git's
   * three lines of context as GitHub shows them: the lines a review comment may be placed on
   * (side RIGHT). Empty when the file did not change.
   */
  async rightHunks(base: string, head: string, path: string): Promise<[number, number][]> {
    const out = await text(this.dir, ['diff', '-U3', '--no-renames', '--no-color', base, head, '--', path]);
    const hunks: [number, number][] = [];
    for (const m of out.matchAll(/^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/gm)) {
      const start = Number(m[1]);
      const count = m[2] === undefined ? 1 : Number(m[2]);
      if (count > 0) hunks.push([start, start + count - 1]);
    }
    return hunks;
  }

  /** Writes files as one commit on `branch` (used to seed repositories). */
  async commitFiles(branch: string, files: Record<string, string | Buffer>, message: string): Promise<string> {
    const parent = await this.resolveRef(`refs/heads/${branch}`);
    const base = parent === null ? undefined : (await this.readCommit(parent)).tree;
    const changes = [];
    for (const [path, content] of Object.entries(files)) {
      changes.push({ path, mode: '100644', type: 'blob', sha: await this.hashBlob(Buffer.from(content)) });
    }
    const tree = await this.writeTree(base, changes);
    const sha = await this.commitTree(tree, parent === null ? [] : [parent], message);
    await this.updateRef(`refs/heads/${branch}`, sha, parent ?? ZERO_SHA);
    return sha;
  }
}
