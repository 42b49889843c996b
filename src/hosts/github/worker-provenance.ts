// Whether an Actions run of the worker workflow is one baton dispatched. Its run-name and
// workflow path prove nothing: anyone who can open a pull request can edit the worker
// workflow (add `on: pull_request`, copy the run-name) and upload a `baton-result` of
// their own. What an outsider cannot fake is the run's id (returned to baton by the
// dispatch and kept in the job's state), its event (`workflow_dispatch`), who triggered
// it (baton's own identity) and where (the default branch, in the repository itself).

export interface WorkerRunFacts {
  id: number;
  /** `workflow_run.event` / GITHUB_EVENT_NAME. */
  event: string;
  /** Who started the run (`actor`) and who triggered this attempt (`triggering_actor`), as logins. */
  actor: string;
  triggeringActor: string;
  /** The branch the run ran on (`head_branch`; the short name of GITHUB_REF). */
  headBranch: string | null;
  /** `owner/repo` of the head repository, when known (a fork's run names the fork). */
  headRepository?: string | null;
}

export interface ProvenanceContext {
  owner: string;
  repo: string;
  botLogin: string;
  defaultBranch: string;
}

/**
 * Why `run` is not the worker run baton dispatched for a job, or undefined when it is.
 * `recorded` is the run id the dispatch returned (null in records written before baton
 * kept it, or when GitHub returned none): then only the other facts decide.
 */
export function foreignWorkerRun(gh: ProvenanceContext, recorded: number | null, run: WorkerRunFacts): string | undefined {
  if (recorded !== null && run.id !== recorded) return `it is not the worker run baton dispatched for this attempt (that is run ${recorded})`;
  if (run.event !== 'workflow_dispatch') return `it was started by a \`${run.event}\` event, and baton starts its workers only with workflow_dispatch`;
  const bot = gh.botLogin.toLowerCase();
  for (const who of new Set([run.actor, run.triggeringActor])) {
    if (who.toLowerCase() !== bot) return `it was triggered by @${who}, not by ${gh.botLogin}`;
  }
  if (run.headBranch !== gh.defaultBranch) return `it ran on ${run.headBranch === null ? 'no branch' : `\`${run.headBranch}\``}, and baton dispatches its workers on \`${gh.defaultBranch}\``;
  const full = `${gh.owner}/${gh.repo}`.toLowerCase();
  if (run.headRepository && run.headRepository.toLowerCase() !== full) return `it ran in ${run.headRepository}, not in ${gh.owner}/${gh.repo}`;
  return undefined;
}

/** The facts of a run as the REST API and the `workflow_run` webhook both carry them. */
export function factsOfRun(r: {
  id: number | bigint | string;
  event?: string | null;
  actor?: { login?: string } | null;
  triggering_actor?: { login?: string } | null;
  head_branch?: string | null;
  head_repository?: { full_name?: string } | null;
}): WorkerRunFacts {
  const actor = r.actor?.login ?? '';
  return {
    id: Number(r.id),
    event: r.event ?? '',
    actor,
    triggeringActor: r.triggering_actor?.login ?? actor,
    headBranch: r.head_branch ?? null,
    headRepository: r.head_repository?.full_name ?? null,
  };
}
