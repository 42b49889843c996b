// Check runs baton owns, upserted by external id and head sha: one per step attempt and
// the aggregate `baton / <workflow>`. An update is sent only for a check run baton knows;
// after a restart it is looked up on the commit first, so none is created twice. A worker
// step's check run is created once, completed, with `started_at` set to when its attempt
// was dispatched (engine/checks-runs.ts).
import type { UpsertCheckRun } from '../../engine/index.ts';
import type { RepoContext } from './client.ts';
import { fitCheckText } from './limits.ts';
import type { RunMemory } from './memory.ts';

export async function upsertCheckRun(gh: RepoContext, memory: RunMemory, cmd: UpsertCheckRun): Promise<void> {
  const o = { owner: gh.owner, repo: gh.repo };
  const cacheKey = `${cmd.externalId}@${cmd.headSha}`;
  let id = memory.checkRuns.get(cacheKey);
  if (id === undefined && !memory.checksKnown) {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', { ...o, ref: cmd.headSha, check_name: cmd.name, per_page: 100 });
    const found = res.data.check_runs.find((c) => c.external_id === cmd.externalId);
    id = found ? Number(found.id) : undefined;
  }
  // The summary holds step outputs and errors of any size: cut to fit, never refused.
  const output = { title: cmd.title.slice(0, 1000) || cmd.name, summary: fitCheckText(cmd.summary || cmd.title || cmd.name) };
  const completed = cmd.status === 'completed';
  const fields = {
    status: cmd.status,
    ...(completed ? { conclusion: cmd.conclusion ?? 'neutral', completed_at: new Date().toISOString() } : {}),
    output,
    ...(cmd.detailsUrl ? { details_url: cmd.detailsUrl } : {}),
  };
  if (id !== undefined) {
    await gh.octokit.request('PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}', { ...o, check_run_id: id, ...fields } as never);
  } else {
    // A check run created already completed still shows how long its work took.
    const started = cmd.startedAt === null ? {} : { started_at: new Date(cmd.startedAt).toISOString() };
    const res = await gh.octokit.request('POST /repos/{owner}/{repo}/check-runs', { ...o, name: cmd.name, head_sha: cmd.headSha, external_id: cmd.externalId, ...started, ...fields } as never);
    id = (res.data as { id: number }).id;
  }
  memory.checkRuns.set(cacheKey, id);
}
