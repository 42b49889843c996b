// `on.workflow_run` ("CI doctor"): a watched GitHub Actions workflow of the repository ended as
// listed (default: failed). The failure goes onto one issue per failing workflow, opened by baton
// (found again by its marker) and a run of the doctor workflow starts there — unless a run of that
// doctor workflow is still open on it: one open doctor run per workflow; a further failure is
// added to the issue as a comment and waits for it.
//
// Who caused it: the run's `actor`, whose push or pull request made the commit CI ran, not its
// `triggering_actor` (who pressed "re-run"): a maintainer re-running a stranger's red run must not
// hand the stranger's code to an agent as the maintainer's. Runs on `baton/…` branches are baton's
// own run branches, whose CI the checks gate reads: a doctor there would answer baton's work with
// more of it. A failure on a fork's branch is nobody's here: `head_branch` names the fork's
// branch (a fork may call it `main`), so the branch is read with the checks gate's rule
// (`branchOfRun`, hosts/github/suite-owner.ts: head repository this one) and a fork's run starts
// nothing — whoever caused it, its code is a stranger's. A delivery starts at most one run across processes: the first process to create
// `refs/baton/doctor/<workflow>/<failing workflow key>/<run id>-<attempt>` handles it (the ref of
// the failure before it is deleted then: one ref per doctor and failing workflow).
import { matchesFilters } from '../../manifest/filter-patterns.ts';
import { createHash } from 'node:crypto';
import { admitsAuthor, isTerminal, listsBot } from '../../engine/index.ts';
import { codeSpan, oneLine } from '../../engine/code-span.ts';
import type { Workflow } from '../../manifest/types.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { createRef, deleteRef, refsUnder } from '../../hosts/github/git-refs.ts';
import { defaultBranchHead, loadManifests } from '../../hosts/github/manifests.ts';
import { permissionOf } from '../../hosts/github/permission.ts';
import { branchOfRun, type WorkflowRunOrigin } from '../../hosts/github/suite-owner.ts';
import { postOnce, readThread } from '../../hosts/github/thread.ts';
import type { Log, RunService } from '../runs.ts';
import { startRun } from './start.ts';
import { continueTrackingIssue, findTrackingIssue, fullReason, isCommentingDisabled, isFull, openTrackingIssue, refusedReason, rewriteTrackingIssue } from './tracking-issue.ts';
import type { Thread } from './start.ts';

export const DOCTOR_PREFIX = 'refs/baton/doctor/';

export interface WorkflowRunEnded {
  id: number;
  attempt: number;
  /** The workflow's `name:` (anyone who can push a workflow file chooses it: hostile). */
  name: string;
  url: string;
  headSha: string;
  /** Where it ran (`originOfRun`): its head branch, and whether that is a branch of this repository. */
  origin: WorkflowRunOrigin;
  conclusion: string | null;
  /** The run's `actor`: whose push or pull request it ran on. */
  actor: string;
  actorIsBot: boolean;
  key: string;
}

/** Longest part of a workflow's or job's name shown (GitHub allows long ones; a hostile one may be any length). */
const SHOWN_CHARS = 120;

/** A hostile name as it stands in baton's text (engine/code-span.ts, as label names are shown). */
export function codeName(text: string): string {
  return codeSpan(text, SHOWN_CHARS);
}

/** A failing workflow's part of markers and refs: the same for the same name, safe anywhere. */
export function failingKey(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 16);
}

export async function onWorkflowRunEnded(runs: RunService, gh: RepoContext, ev: WorkflowRunEnded, log: Log): Promise<void> {
  const branch = branchOfRun(ev.origin);
  if (branch === null || branch.startsWith('baton/')) return;
  const sha = await defaultBranchHead(gh);
  const set = await loadManifests(gh, sha);
  const doctors = set.files.flatMap((f) => {
    const w = f.loaded?.workflow.on.workflowRun;
    return w && w.workflows.includes(ev.name) && matchesFilters(w.branches, branch) && w.conclusions.includes(ev.conclusion ?? '') ? [f.loaded!] : [];
  });
  for (const { workflow, hash } of doctors) {
    const authors = workflow.on.workflowRun!.authors;
    // baton's own acts never start its workflows unless its login is listed by name.
    if (ev.actor.toLowerCase() === gh.botLogin.toLowerCase() && !listsBot(authors.bots, ev.actor)) continue;
    const permission = ev.actorIsBot ? 'none' : await permissionOf(gh, ev.actor);
    if (!admitsAuthor(workflow.on, 'workflow_run', ev.actor, permission)) {
      log.info(`ignored workflow run ${ev.id} by ${ev.actor}: on.workflow_run.authors of \`${workflow.name}\` does not admit them`);
      continue;
    }
    await doctor(runs, gh, { workflow, hash, sha, permission }, ev, log);
  }
}

async function doctor(runs: RunService, gh: RepoContext, d: { workflow: Workflow; hash: string; sha: string; permission: Awaited<ReturnType<typeof permissionOf>> }, ev: WorkflowRunEnded, log: Log): Promise<void> {
  const key = failingKey(ev.name);
  const prefix = `${DOCTOR_PREFIX}${d.workflow.name}/${key}/`;
  const earlier = await refsUnder(gh, prefix.slice('refs/'.length));
  const claim = `${prefix}${ev.id}-${ev.attempt}`;
  if (earlier.some((r) => r.ref === claim)) return;
  if (!(await createRef(gh, claim, d.sha)).created) return; // another process has this failure
  for (const r of earlier) await deleteRef(gh, r.ref);

  const facts = await factsOf(gh, ev);
  const marker = `baton:doctor ${key}`;
  const text = (now: string) => `${now}\n\n${facts}\n\nbaton opened this issue for the workflow \`${d.workflow.name}\` (\`on.workflow_run\`): each failure like this one starts a run of it here, one at a time. To stop them, remove \`on.workflow_run\` from its manifest in \`.agents/workflows/\` on the default branch.`;
  const title = `baton: workflow "${oneLine(ev.name, SHOWN_CHARS, '(no name)')}" failed`;
  const found = await findTrackingIssue(gh, marker);
  let thread = found ?? (await openTrackingIssue(gh, marker, title, text(`The GitHub Actions workflow ${codeName(ev.name)} ended with \`${ev.conclusion}\`.`)));
  const read = await readThread(gh, thread.number);
  const mine = read.records.filter((r) => r.state.workflow === d.workflow.name);
  const open = mine.find((r) => r.state.status !== 'idle' && !isTerminal(r.state.status));
  if (open) {
    // The open run keeps its issue, full or not (one open doctor run per workflow): a full one
    // takes one last note saying so, and the first failure after the run continues on a new issue.
    const full = isFull(gh, thread);
    const note = full
      ? `${fullReason(gh, thread)}. Further failures of ${codeName(ev.name)} while run \`${open.state.runId}\` is open are not noted here; the first one after it ends continues on a new issue.`
      : `The workflow ${codeName(ev.name)} failed again while run \`${open.state.runId}\` is still open; no new run starts until it ends.\n\n${facts}`;
    try {
      await postOnce(gh, thread.number, full ? `baton:reply doctor-full/${open.state.runId}` : `baton:reply doctor-failure/${ev.id}-${ev.attempt}`, note, read.markers);
    } catch (err) {
      // At GitHub's cap already (others' comments): the run's own issue says nothing more; the next failure after it moves on.
      if (!isCommentingDisabled(err)) throw err;
      log.warn(`doctor of \`${d.workflow.name}\`: #${thread.number} takes no more comments; the failure of run ${ev.id} is not noted there`);
    }
    return;
  }
  const tracking = { marker, title, text: text(`The GitHub Actions workflow ${codeName(ev.name)} ended with \`${ev.conclusion}\` again.`) };
  let earlierRuns = mine.length;
  if (found && isFull(gh, found)) {
    thread = await continueTrackingIssue(gh, found, tracking, fullReason(gh, found));
    earlierRuns = 0;
  } else if (found) {
    // The run reads its issue: the body says what failed this time.
    thread = await rewriteTrackingIssue(gh, thread, marker, tracking.text);
  }
  // Keyed by how many runs the issue had: two failures handled at once start one run.
  const start = (on: Thread, before: number) =>
    startRun(runs, gh, { workflow: d.workflow, hash: d.hash, manifestCommit: d.sha, thread: on, actor: ev.actor, actorIsBot: ev.actorIsBot, permission: d.permission, inputs: {}, key: `doctor:${d.workflow.name}:${on.number}:${before + 1}`, trigger: 'workflow_run' }, log);
  try {
    await start(thread, earlierRuns);
  } catch (err) {
    // GitHub refused the run's comment: a new issue says so, and the run starts there.
    if (!isCommentingDisabled(err)) throw err;
    await start(await continueTrackingIssue(gh, thread, tracking, refusedReason(thread)), 0);
  }
}

/** The failure as the issue and the agent read it: names sanitised, the failed jobs' names when Actions gives them. */
async function factsOf(gh: RepoContext, ev: WorkflowRunEnded): Promise<string> {
  let jobs: string[] = [];
  try {
    const res = await gh.octokit.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs', { owner: gh.owner, repo: gh.repo, run_id: ev.id, filter: 'latest', per_page: 100 });
    jobs = (res.data.jobs as Array<{ name: string; conclusion: string | null }>).filter((j) => j.conclusion !== null && j.conclusion !== 'success' && j.conclusion !== 'skipped').map((j) => `${codeName(j.name)} (\`${j.conclusion}\`)`);
  } catch {
    // The jobs only add detail: a run deleted since, or a token without `actions: read`, leaves them out.
  }
  return [
    `- workflow: ${codeName(ev.name)}`,
    `- run: ${ev.url}`,
    `- conclusion: \`${ev.conclusion}\``,
    `- branch: ${codeName(ev.origin.headBranch ?? '')}`,
    `- commit: \`${ev.headSha}\``,
    ...(jobs.length ? [`- failed jobs: ${jobs.join(', ')}`] : []),
  ].join('\n');
}
