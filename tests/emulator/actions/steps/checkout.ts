// actions/checkout: a real clone of the repository's bare git directory, done the way
// the action does it (init, fetch the one commit at `fetch-depth`, check out the branch
// or a detached sha), so the workspace holds exactly what the ref holds.
import { mkdir, readdir } from 'node:fs/promises';
import { git, resolveRef } from '../git.ts';
import { StepFailure, type StepInvocation } from '../types.ts';
import { isInside, resolveInWorkspace } from './paths.ts';

export async function checkout(step: StepInvocation): Promise<void> {
  const { job } = step;
  const repository = step.with.repository || `${job.run.owner}/${job.run.repo}`;
  const [owner, repo] = repository.split('/');
  if (!owner || !repo) throw new StepFailure(`Invalid repository '${repository}'. Expected format {owner}/{repo}.`);
  let gitDir: string;
  try {
    gitDir = job.host.gitDir(owner, repo);
  } catch {
    throw new StepFailure(`repository ${repository} not found`);
  }
  const dest = resolveInWorkspace(job.workspace, step.with.path || '.');
  if (!isInside(job.workspace, dest)) throw new StepFailure(`Repository path '${dest}' is not under '${job.workspace}'`);
  await mkdir(dest, { recursive: true });
  if ((await readdir(dest)).length > 0) job.log(`Deleting the contents of '${dest}'`);

  // Which commit: `ref:` (branch, tag or sha), else the run's own ref and sha.
  const sameRepo = owner.toLowerCase() === job.run.owner.toLowerCase() && repo.toLowerCase() === job.run.repo.toLowerCase();
  const wanted = step.with.ref || (sameRepo ? job.run.headSha : '');
  let sha: string;
  let branch: string | undefined;
  if (/^[0-9a-f]{40}$/i.test(wanted)) {
    sha = wanted.toLowerCase();
    if (!step.with.ref && sameRepo && job.run.ref.startsWith('refs/heads/')) branch = job.run.headBranch;
  } else {
    const resolved = await resolveRef(gitDir, wanted || (await git(['--git-dir', gitDir, 'symbolic-ref', 'HEAD'])).trim());
    if (!resolved) throw new StepFailure(`A branch or tag with the name '${wanted}' could not be found`);
    sha = resolved.sha;
    if (resolved.ref.startsWith('refs/heads/')) branch = resolved.name;
  }

  const depth = Number(step.with['fetch-depth'] ?? '1');
  if (!Number.isInteger(depth) || depth < 0) throw new StepFailure(`fetch-depth must be a whole number, got '${step.with['fetch-depth']}'`);
  // In the sandbox the job's folders are the runner user's while this git runs as the
  // emulator's root: git refuses a repository another user owns unless told (the files are
  // handed to that user afterwards, as actions/checkout running as it leaves them).
  const inDest = (args: string[]) => git(job.sandbox ? ['-c', `safe.directory=${dest}`, ...args] : args, { cwd: dest });
  await inDest(['init', '-q']);
  // Fetch straight from the bare repo (file:// so that --depth works locally); `origin`
  // is added afterwards, pointing where the job's own git commands should go.
  const fetchArgs = ['-c', 'protocol.version=2', 'fetch', '--no-tags', '--no-recurse-submodules'];
  if (depth > 0) fetchArgs.push(`--depth=${depth}`);
  const refspec = branch ? `+${sha}:refs/remotes/origin/${branch}` : sha;
  try {
    await inDest([...fetchArgs, `file://${gitDir}`, refspec]);
  } catch (err) {
    throw new StepFailure(`fetching ${wanted || sha} failed: ${(err as Error).message}`);
  }
  if (branch) await inDest(['checkout', '-q', '--force', '-B', branch, `refs/remotes/origin/${branch}`]);
  else await inDest(['checkout', '-q', '--force', '--detach', sha]);
  job.log(`Checked out ${repository} at ${sha}${branch ? ` (${branch})` : ''} into ${dest}`);

  // The remote a job talks to afterwards, and the token `git push` uses when credentials persist.
  const url = job.host.cloneUrl?.(owner, repo) ?? gitDir;
  await inDest(['remote', 'add', 'origin', url]);
  const persist = (step.with['persist-credentials'] ?? 'true') !== 'false';
  const token = step.with.token || job.token;
  if (persist && /^https?:/.test(url)) {
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    await inDest(['config', '--local', `http.${new URL(url).origin}/.extraheader`, `AUTHORIZATION: basic ${basic}`]);
  }
  // The checkout is the job's user's, as actions/checkout running as that user leaves it.
  await job.sandbox?.own(dest);
}
