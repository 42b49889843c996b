/**
 * Runs the probe on a target: the maintainer commits the probe's workflow onto a scratch branch
 * `baton-conformance/runner-probe-<id>` made from the default branch (the default branch itself
 * is never written), the branch's push starts it, and each image's artifact is downloaded and
 * read. The branch and the run are removed afterwards (runner.ts's undos).
 */
import { unzipFiles } from '../../../tests/emulator/actions/zip.ts';
import type { Octokit } from '@octokit/rest';
import { attempt, must } from '../observe.ts';
import { failureOf, RUN_ROUTES, RUN_SECONDS, until, type Run } from '../scenarios/runs.ts';
import { commitOn, defaultBranch, PREFIX, scratchRef } from '../scenarios/support.ts';
import type { ScenarioContext } from '../types.ts';
import { parseProbe, PROBE_IMAGES, type Facts } from './facts.ts';
import { artifactName, probeWorkflow } from './workflow.ts';

export const PROBE_ROUTES = [
  'GET /repos/{owner}/{repo}',
  'GET /repos/{owner}/{repo}/git/ref/{ref}',
  'POST /repos/{owner}/{repo}/git/trees',
  'POST /repos/{owner}/{repo}/git/commits',
  'POST /repos/{owner}/{repo}/git/refs',
  'DELETE /repos/{owner}/{repo}/git/refs/{ref}',
  ...RUN_ROUTES,
  'GET /repos/{owner}/{repo}/actions/runs',
  'DELETE /repos/{owner}/{repo}/actions/runs/{run_id}',
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts',
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
];

/** Each image's facts, or why that image gave none (its job failed, or no runner picked it up). */
export type ProbeResult = Record<string, Facts | { missing: string }>;

/**
 * The push runs at `sha`. Listed by commit, not by workflow file: a workflow that is on no
 * default branch is not found by its file name.
 */
async function probeRuns(ctx: ScenarioContext, octokit: Octokit, sha: string): Promise<Run[]> {
  const { owner, repo } = ctx.target;
  const listed = await must(octokit.request('GET /repos/{owner}/{repo}/actions/runs', { owner, repo, head_sha: sha, event: 'push', per_page: 100 }), 'listing the runs');
  return (listed.workflow_runs as Run[]).filter((r) => r.head_sha === sha && r.event === 'push');
}

export async function runProbe(ctx: ScenarioContext): Promise<ProbeResult> {
  const maintainer = ctx.as('maintainer');
  const { owner, repo } = ctx.target;
  const branch = `${PREFIX}/runner-probe-${ctx.id}`;
  const workflow = `${PREFIX}-runner-probe.yml`;
  const base = await defaultBranch(ctx, maintainer);
  const sha = await commitOn(ctx, maintainer, base.sha, { [`.github/workflows/${workflow}`]: probeWorkflow(branch) }, `${PREFIX}: the runner probe`);
  ctx.cleanup(`the probe's runs at ${sha}`, async () => {
    for (const r of await probeRuns(ctx, maintainer, sha)) {
      if (r.status !== 'completed') await attempt(maintainer.request('POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel', { owner, repo, run_id: r.id }));
      await must(maintainer.request('DELETE /repos/{owner}/{repo}/actions/runs/{run_id}', { owner, repo, run_id: r.id }), `deleting the probe's run ${r.id}`);
    }
  });
  await scratchRef(ctx, maintainer, `refs/heads/${branch}`, sha);
  // A job no runner picks up (an image the account may not use) keeps the run going: after
  // RUN_SECONDS the images that did finish are read, and the others say so.
  const completed = await until(ctx, RUN_SECONDS, async () => (await probeRuns(ctx, maintainer, sha)).find((r) => r.status === 'completed'));
  const run = completed ?? (await probeRuns(ctx, maintainer, sha))[0];
  if (run === undefined) throw new Error(`no run of the probe started for the push of ${branch} within ${RUN_SECONDS} s`);
  const { artifacts } = await must(maintainer.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { owner, repo, run_id: run.id }), 'listing the artifacts');
  const out: ProbeResult = {};
  for (const image of PROBE_IMAGES) {
    const artifact = artifacts.find((a) => a.name === artifactName(image));
    if (artifact === undefined) {
      const why = completed === undefined ? `the run was still ${run.status} after ${RUN_SECONDS} s` : run.conclusion === 'success' ? 'the job uploaded none' : await failureOf(ctx, maintainer, run);
      out[image] = { missing: `no artifact ${artifactName(image)}: ${why}` };
      continue;
    }
    const zip = await must(maintainer.request('GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { owner, repo, artifact_id: artifact.id, archive_format: 'zip' }), `downloading ${artifact.name}`);
    const file = unzipFiles(new Uint8Array(zip as ArrayBuffer)).get('runner-probe.json');
    out[image] = file === undefined ? { missing: `${artifact.name} holds no runner-probe.json` } : parseProbe(Buffer.from(file).toString('utf8'), artifact.name);
  }
  return out;
}
