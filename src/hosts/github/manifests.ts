// Workflow manifests, always from the default branch (never from a PR's head: a pull
// request must not be able to change what runs for it). Read through the contents API
// at a commit and cached by commit, since what a commit holds never changes.
import { loadWorkflowText, type FileResult } from '../../manifest/load.ts';
import type { Workflow } from '../../manifest/types.ts';
import { statusOf, type RepoContext } from './client.ts';

export const WORKFLOWS_DIR = '.agents/workflows';

export interface ManifestSet {
  sha: string;
  files: FileResult[];
}

/** Where manifests are read from: a repository through a client, and the cache it reads through. */
export type ManifestSource = Pick<RepoContext, 'octokit' | 'owner' | 'repo' | 'manifests'>;

/**
 * Told of each set of manifests the first time its cache reads it (the App creates the
 * trigger labels it names); it never throws, and the set is handed on when it returns.
 */
export type ManifestsReader = (gh: ManifestSource, set: ManifestSet) => Promise<void>;

/**
 * Sets of manifests by commit. Each App has its own (with its reader, through RepoContext):
 * a read in flight is shared by the events of that App only, never by another App that
 * happens to live in the same process (tests run several), whose client may fail differently.
 */
export class ManifestCache {
  private readonly sets = new Map<string, Promise<ManifestSet>>();

  constructor(private readonly onRead?: ManifestsReader) {}

  load(gh: ManifestSource, sha: string): Promise<ManifestSet> {
    const key = `${gh.owner}/${gh.repo}@${sha}`.toLowerCase();
    const start = (): Promise<ManifestSet> => {
      const reader = this.onRead;
      const hit = read(gh, sha).then(async (set) => {
        await reader?.(gh, set);
        return set;
      });
      hit.catch(() => {
        if (this.sets.get(key) === hit) this.sets.delete(key); // a failed read is not remembered
      });
      if (this.sets.size > 200) this.sets.delete(this.sets.keys().next().value!);
      this.sets.set(key, hit);
      return hit;
    };
    const inFlight = this.sets.get(key);
    // A read another event started failed with its client and its error: this caller reads with its own.
    return inFlight ? inFlight.catch(start) : start();
  }
}

/** The cache of readers that bring none (the CLI, the MCP server, Actions-only: one per process). */
const shared = new ManifestCache();

export async function defaultBranchHead(gh: Pick<RepoContext, 'octokit' | 'owner' | 'repo' | 'defaultBranch'>): Promise<string> {
  const res = await gh.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner: gh.owner, repo: gh.repo, ref: `heads/${gh.defaultBranch}` });
  return res.data.object.sha;
}

export function loadManifests(gh: ManifestSource, sha: string): Promise<ManifestSet> {
  return (gh.manifests ?? shared).load(gh, sha);
}

async function read(gh: ManifestSource, sha: string): Promise<ManifestSet> {
  const o = { owner: gh.owner, repo: gh.repo, ref: sha };
  let entries: { name: string; path: string; type: string }[];
  try {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...o, path: WORKFLOWS_DIR });
    entries = Array.isArray(res.data) ? res.data : [];
  } catch (err) {
    if (statusOf(err) === 404) return { sha, files: [] };
    throw err;
  }
  const files: FileResult[] = [];
  for (const e of entries.filter((x) => x.type === 'file' && /\.ya?ml$/.test(x.name)).sort((a, b) => a.name.localeCompare(b.name))) {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/contents/{path}', { ...o, path: e.path });
    const data = res.data as { content?: string; encoding?: string };
    const text = Buffer.from(data.content ?? '', (data.encoding as BufferEncoding) ?? 'base64').toString('utf8');
    files.push(loadWorkflowText(e.path, text));
  }
  return { sha, files };
}

export function validWorkflows(set: ManifestSet): Workflow[] {
  return set.files.flatMap((f) => (f.loaded ? [f.loaded.workflow] : []));
}

export function byName(set: ManifestSet, name: string): { workflow: Workflow; hash: string } | undefined {
  const f = set.files.find((x) => x.loaded?.workflow.name === name);
  return f?.loaded && { workflow: f.loaded.workflow, hash: f.loaded.hash };
}

export function byLabel(set: ManifestSet, label: string): { workflow: Workflow; hash: string } | undefined {
  const f = set.files.find((x) => x.loaded?.workflow.on.labels.some((l) => l.toLowerCase() === label.toLowerCase()));
  return f?.loaded && { workflow: f.loaded.workflow, hash: f.loaded.hash };
}

export function byCommand(set: ManifestSet, command: string): { workflow: Workflow; hash: string } | undefined {
  const f = set.files.find((x) => x.loaded?.workflow.on.commands.includes(command));
  return f?.loaded && { workflow: f.loaded.workflow, hash: f.loaded.hash };
}

/**
 * The broken manifest a label or command most likely meant: the file named after it
 * (`baton:fix-issue` or `/baton fix-issue` → fix-issue.yml), else the only broken one.
 */
export function brokenFor(set: ManifestSet, word: string): FileResult | undefined {
  const broken = set.files.filter((f) => !f.valid);
  const name = word.replace(/^baton:/, '');
  return broken.find((f) => f.file.replace(/^.*\//, '').replace(/\.ya?ml$/, '') === name) ?? (broken.length === 1 ? broken[0] : undefined);
}
