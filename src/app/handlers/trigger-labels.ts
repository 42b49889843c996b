// Trigger labels exist where the App works: when it is installed on repositories
// (installation.created, installation_repositories.added) it reads their manifests, and
// whenever it reads a set of manifests for the first time (a new commit on the default
// branch) it creates the `on.labels` that are missing. Failures are logged, never thrown:
// a label is a convenience, and the next read tries again.
import type { Probot } from 'probot';
import type { GitHubClient } from '../../hosts/github/client.ts';
import { defaultBranchHead, loadManifests, ManifestCache, validWorkflows } from '../../hosts/github/manifests.ts';
import { ensureTriggerLabels, type LabelLog } from '../../hosts/github/trigger-labels.ts';
import { triggerLabels } from '../../manifest/trigger-labels.ts';

interface ShortRepository {
  full_name: string;
}

/** Registers the installation handlers; returns the App's manifests cache, which creates the labels of each set it reads. */
export function registerTriggerLabels(app: Probot): ManifestCache {
  const log: LabelLog = { info: (m) => app.log.info(m), warn: (m) => app.log.warn(m) };
  const manifests = new ManifestCache((gh, set) => ensureTriggerLabels(gh, triggerLabels(validWorkflows(set)), log));

  const installed = async (octokit: GitHubClient, repositories: readonly ShortRepository[]): Promise<void> => {
    for (const r of repositories) {
      const [owner, repo] = r.full_name.split('/') as [string, string];
      try {
        const { data } = await octokit.request('GET /repos/{owner}/{repo}', { owner, repo });
        const gh = { octokit, owner, repo, defaultBranch: data.default_branch, manifests };
        // Reading the manifests creates their labels (the cache's reader above).
        await loadManifests(gh, await defaultBranchHead(gh));
      } catch (err) {
        log.warn(`could not read the workflows of ${r.full_name} to create their trigger labels: ${(err as Error).message}`);
      }
    }
  };
  app.on('installation.created', (context) => installed(context.octokit as unknown as GitHubClient, context.payload.repositories ?? []));
  app.on('installation_repositories.added', (context) => installed(context.octokit as unknown as GitHubClient, context.payload.repositories_added));
  return manifests;
}
