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

const cache = new Map<string, Promise<ManifestSet>>();

/** Where manifests are read from: a repository through a client. */
export type ManifestSource = Pick<RepoContext, 'octokit' | 'owner' | 'repo'>;

/**
 * Told of each set of manifests the first time this process reads it (the App creates the
 * trigger labels it names); it never throws, and the set is handed on when it returns.
 */
export type ManifestsReader = (gh: ManifestSource, set: ManifestSet) => Promise<void>;
let onRead: ManifestsReader | undefined;

export function whenManifestsRead(reader: ManifestsReader | undefined): void {
  onRead = reader;
}

export async function defaultBranchHead(gh: Pick<RepoContext, 'octokit' | 'owner' | 'repo' | 'defaultBranch'>): Promise<string> {
  const res = await gh.octokit.request('GET /repos/{owner}/{repo}/git/ref/{ref}', { owner: gh.owner, repo: gh.repo, ref: `heads/${gh.defaultBranch}` });
  return res.data.object.sha;
}

export function loadManifests(gh: ManifestSource, sha: string): Promise<ManifestSet> {
  const key = `${gh.owner}/${gh.repo}@${sha}`.toLowerCase();
  const start = (): Promise<ManifestSet> => {
    const reader = onRead;
    const hit = read(gh, sha).then(async (set) => {
      await reader?.(gh, set);
      return set;
    });
    hit.catch(() => cache.get(key) === hit && cache.delete(key)); // a failed read is not remembered
    if (cache.size > 200) cache.delete(cache.keys().next().value!);
    cache.set(key, hit);
    return hit;
  };
  const shared = cache.get(key);
  // A read another caller started failed with its client and its error: this caller reads with its own.
  return shared ? shared.catch(start) : start();
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
