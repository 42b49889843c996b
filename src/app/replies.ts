// Answers in a thread that belong to no run: usage, unknown workflows, broken manifests,
// refusals before a run exists. Each carries a marker so a redelivery posts nothing new.
import { formatDiagnostic } from '../manifest/diagnostics.ts';
import type { FileResult } from '../manifest/load.ts';
import type { RepoContext } from '../hosts/github/client.ts';
import { fitCheckText } from '../hosts/github/limits.ts';
import { replyFor, type Standing } from '../hosts/github/stranger-door.ts';
import { readThread, postOnce } from '../hosts/github/thread.ts';
import { PACKAGE_NAME } from '../names.ts';

/**
 * Posts once per key: the thread is read to see whether an earlier delivery already did.
 * `to`: the person the reply answers, and whether they have the role for what they asked —
 * every reply to a person goes through the stranger door (stranger-door.ts), which rations
 * those without one. Without `to`, the reply is baton's own notice (setup, a labeller's typo).
 */
export async function replyOnce(gh: RepoContext, number: number, key: string, body: string, to?: Standing): Promise<void> {
  if (to !== undefined) {
    await replyFor(gh, number, key, to, body);
    return;
  }
  const { markers } = await readThread(gh, number);
  await postOnce(gh, number, `baton:reply ${key}`, body, markers);
}

/**
 * A manifest that does not load: every problem with file:line in the thread, and a
 * failed `baton / manifests` check on the commit it was read from, with annotations.
 */
export async function reportBrokenManifest(gh: RepoContext, number: number, file: FileResult, sha: string, key: string, to?: Standing): Promise<void> {
  const errors = file.diagnostics.filter((d) => d.severity === 'error');
  const list = errors.map((d) => `- \`${formatDiagnostic(d)}\``).join('\n');
  const body = `${to === undefined ? '' : `@${to.login}, `}❌ baton cannot start a run: \`${file.file}\` on the default branch (${sha.slice(0, 7)}) is not a valid workflow.\n\n${list}\n\nFix the file on the default branch, then ask again. \`npx -y ${PACKAGE_NAME} validate\` shows the same problems locally.`;
  await replyOnce(gh, number, `${key}/manifest`, body, to);
  // The failed check is for the people who can fix the file; a stranger's ask costs only the rationed reply.
  if (to?.stranger) return;
  const o = { owner: gh.owner, repo: gh.repo };
  const externalId = `manifest/${file.file}`;
  const existing = await gh.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...o, ref: sha, check_name: 'baton / manifests' });
  if (existing.data.check_runs.some((c) => c.external_id === externalId)) return;
  await gh.octokit.request('POST /repos/{owner}/{repo}/check-runs', {
    ...o,
    name: 'baton / manifests',
    head_sha: sha,
    external_id: externalId,
    status: 'completed',
    conclusion: 'failure',
    output: {
      title: `${file.file}: ${errors.length} problem${errors.length === 1 ? '' : 's'}`,
      summary: fitCheckText(list),
      annotations: errors.slice(0, 50).map((d) => ({
        path: d.file,
        start_line: d.line,
        end_line: d.line,
        annotation_level: 'failure' as const,
        message: d.message,
      })),
    },
  });
}
