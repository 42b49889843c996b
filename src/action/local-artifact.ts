// The App collects a worker's result by downloading its artifact through the API. The
// `apply` job already has it on disk (actions/download-artifact), so the App's code is
// reused as is with an Octokit that answers those two requests from the local copy and
// sends every other request to GitHub. (A `collectWorkerResult` taking a ResultBundle
// would make this unnecessary.)
import { zipSync } from 'fflate';
import { RESULT_ARTIFACT, type ResultBundle } from '../agents/result.ts';
import type { GitHubClient } from '../hosts/github/client.ts';

const LIST = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts';
const DOWNLOAD = 'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}';
const LOCAL_ID = 1;

/** The bundle as the zip upload-artifact would have made of the result directory. */
export function zipBundle(bundle: ResultBundle): Uint8Array {
  const enc = new TextEncoder();
  const entries: Record<string, Uint8Array> = { 'result.json': enc.encode(JSON.stringify(bundle.result)), 'transcript.txt': enc.encode(bundle.transcript) };
  for (const [path, content] of bundle.files) entries[`files/${path}`] = content;
  return zipSync(entries);
}

/**
 * Serves the artifacts of workflow run `runId` (this job's run) from `bundle`; undefined:
 * the worker uploaded nothing (the App then says why from the conclusion). Other runs'
 * artifacts (reconciling a worker whose apply job never ran) still come from GitHub.
 */
export function withLocalArtifact(octokit: GitHubClient, runId: number, bundle: ResultBundle | undefined): GitHubClient {
  const request = (async (route: string, params: Record<string, unknown>) => {
    if (route === LIST && Number(params.run_id) === runId) {
      return { status: 200, headers: {}, url: '', data: { total_count: bundle ? 1 : 0, artifacts: bundle ? [{ id: LOCAL_ID, name: RESULT_ARTIFACT, expired: false, size_in_bytes: zipBundle(bundle).byteLength }] : [] } };
    }
    if (route === DOWNLOAD && bundle && params.artifact_id === LOCAL_ID) {
      const zip = zipBundle(bundle);
      return { status: 200, headers: {}, url: '', data: zip.buffer.slice(zip.byteOffset, zip.byteOffset + zip.byteLength) };
    }
    return octokit.request(route as never, params as never);
  }) as unknown as GitHubClient['request'];
  // Everything else (paginate, hooks) is the real client's.
  return Object.assign(Object.create(octokit) as GitHubClient, { request });
}
