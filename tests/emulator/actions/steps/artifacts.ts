// actions/upload-artifact and actions/download-artifact (v4 semantics): artifacts belong
// to the run, are immutable, and a second upload of the same name fails unless
// `overwrite: true`. The API serves them as zip archives.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { ActionsStore, ArtifactRecord, RunRecord } from '../records.ts';
import { StepFailure, type StepInvocation, type StepOutcome } from '../types.ts';
import { sha256, zipFiles } from '../zip.ts';
import { commonDir, globFiles, hasGlob, isInside, resolveInWorkspace, searchRoot } from './paths.ts';

const RETENTION_DAYS = 90;

export class ArtifactService {
  constructor(private readonly store: ActionsStore) {}

  save(run: RunRecord, name: string, files: Map<string, Uint8Array>, overwrite: boolean): ArtifactRecord {
    const existing = this.forRun(run).find((a) => a.name === name);
    if (existing && !overwrite) {
      throw new StepFailure(`Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run`);
    }
    if (existing) this.store.artifacts.delete(existing.id);
    const zip = zipFiles(files);
    const now = new Date();
    const artifact: ArtifactRecord = {
      id: this.store.id(),
      owner: run.owner,
      repo: run.repo,
      runId: run.id,
      name,
      files,
      zip,
      digest: sha256(zip),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + RETENTION_DAYS * 86_400_000).toISOString(),
      headBranch: run.headBranch,
      headSha: run.headSha,
      downloadKey: randomBytes(12).toString('hex'),
    };
    this.store.artifacts.set(artifact.id, artifact);
    return artifact;
  }

  forRun(run: RunRecord): ArtifactRecord[] {
    return this.store.artifactsOf(run.owner, run.repo, run.id);
  }

  htmlUrl(serverUrl: string, a: ArtifactRecord): string {
    return `${serverUrl}/${a.owner}/${a.repo}/actions/runs/${a.runId}/artifacts/${a.id}`;
  }
}

function lines(value: string | undefined): string[] {
  return (value ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

export async function uploadArtifact(step: StepInvocation, serverUrl: string): Promise<StepOutcome> {
  const { job } = step;
  const name = step.with.name || 'artifact';
  const patterns = lines(step.with.path);
  if (patterns.length === 0) throw new StepFailure('Input required and not supplied: path');
  if (patterns.some((p) => p.startsWith('!'))) throw new StepFailure('exclude patterns (`!…`) in `path` are not supported by the emulator');
  const ifNone = step.with['if-no-files-found'] || 'warn';
  // upload-artifact v4.4.0+ leaves out dotfiles and dot-directories (a hidden search path
  // too) unless `include-hidden-files: true` (actions/upload-artifact README and v4.4.0
  // release notes; issue #602; elastic/cloudbeat PR #5286 for a hidden `path:`).
  const excludeHidden = step.with['include-hidden-files'] !== 'true';

  const absPatterns = patterns.map((p) => resolveInWorkspace(job.workspace, p));
  const found = new Set<string>();
  for (const p of absPatterns) for (const f of await globFiles(p, { excludeHidden })) found.add(f);
  if (found.size === 0) {
    const msg = `No files were found with the provided path: ${patterns.join('\n')}. No artifacts will be uploaded.`;
    if (ifNone === 'error') throw new StepFailure(msg);
    if (ifNone === 'warn') job.log(`##[warning]${msg}`);
    else job.log(msg);
    return {};
  }
  // The archive root is the common directory of the search paths, as upload-artifact does:
  // a single directory uploads its contents, a single file uploads just that file.
  const searchPaths = absPatterns.map((p) => (hasGlob(p) ? searchRoot(p) : p));
  let root = commonDir(searchPaths);
  if (found.size === 1 && found.has(root)) root = dirname(root);
  const files = new Map<string, Uint8Array>();
  for (const f of [...found].sort()) {
    if (!isInside(root, f)) throw new StepFailure(`${f} is outside the artifact root ${root}`);
    files.set(relative(root, f), new Uint8Array(await readFile(f)));
  }
  const artifact = job.artifacts.save(job.run, name, files, step.with.overwrite === 'true');
  job.log(`Artifact ${name} has been successfully uploaded! Final size is ${artifact.zip.length} bytes. Artifact ID is ${artifact.id}`);
  return {
    outputs: {
      'artifact-id': String(artifact.id),
      'artifact-url': job.artifacts.htmlUrl(serverUrl, artifact),
      'artifact-digest': artifact.digest.replace(/^sha256:/, ''),
    },
  };
}

export async function downloadArtifact(step: StepInvocation): Promise<StepOutcome> {
  const { job } = step;
  const dest = resolveInWorkspace(job.workspace, step.with.path || '.');
  const all = job.artifacts.forRun(job.run);
  const name = step.with.name;
  if (name) {
    const artifact = all.find((a) => a.name === name);
    if (!artifact) throw new StepFailure(`Unable to download artifact(s): Artifact not found for name: ${name}`);
    await extract(artifact, dest);
  } else {
    // No name: every artifact of the run, each in a directory of its name unless merge-multiple.
    const merge = step.with['merge-multiple'] === 'true';
    const pattern = step.with.pattern;
    const re = pattern ? new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`) : undefined;
    for (const a of all) if (!re || re.test(a.name)) await extract(a, merge ? dest : join(dest, a.name));
  }
  // The job's user's files, as download-artifact running as that user leaves them.
  await job.sandbox?.own(dest);
  job.log(`Artifact download completed to ${dest}`);
  return { outputs: { 'download-path': dest } };
}

async function extract(artifact: ArtifactRecord, dest: string): Promise<void> {
  for (const [path, data] of artifact.files) {
    const target = join(dest, path);
    if (!isInside(dest, target)) throw new StepFailure(`artifact entry ${path} escapes ${dest}`);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, data);
  }
}
