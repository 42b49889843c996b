// Merging a step's commit into the run branch. When the run branch still points at the
// commit's parent (one step after another) the merge is a fast-forward of the ref; else
// the merges API makes a merge commit. Neither needs a ref on the commit (the merges API
// takes its sha), so a step's commit gets its step branch only when it conflicts: the
// attempt is retried from the run branch and nothing of baton's points at the commit any
// more, but people looking into the conflict want to fetch it. A conflict names the files
// both sides touched.
import { mergeInto, readRef, updateRef } from './git-refs.ts';
import type { MergeStepBranch, RunEvent } from '../../engine/index.ts';
import { keepStepCommit } from './step-refs.ts';
import { messageOf, refusedForGood, statusOf, type RepoContext } from './client.ts';
import type { CommitCache } from './memory.ts';
import { catchUpWithDefaultBranch, RunBranchRefused, workflowRuleRefusal } from './workflow-rule.ts';
import { mergeWorkflowRefusal } from './workflow-files.ts';

/** GitHub's answer to a ref update that is not a fast-forward (`force: false`): 422 "Update is not a fast forward". */
export function notFastForward(err: unknown): boolean {
  return statusOf(err) === 422 && /fast forward/i.test(messageOf(err));
}

/**
 * `onHead` false: the commit's parent is not the branch head (a parallel slot that started before
 * another merged): no fast-forward can succeed, so none is asked for — a refused write is still a
 * paced write of the installation's budget. The merges API takes it directly.
 */
export async function mergeStepBranch(gh: RepoContext, commits: CommitCache, cmd: MergeStepBranch, head: string, at: number, { onHead = true }: { onHead?: boolean } = {}): Promise<RunEvent[]> {
  const ref = { step: cmd.step, slot: cmd.slot, attempt: cmd.attempt };
  const done = (sha: string): RunEvent[] => [{ type: 'merge.completed', key: `${cmd.key}/merged`, at, ...ref, head: sha }];
  if (cmd.commit === head) return done(head);
  // A write GitHub refuses for good (workflow files, a ruleset, a protected branch) fails the attempt, saying why.
  const refused = async (err: unknown): Promise<RunEvent[]> => {
    if (!refusedForGood(err)) throw err;
    const error = (await mergeWorkflowRefusal(gh, head, cmd.commit, err)) ?? `GitHub refused to merge the step's commit into ${cmd.into} (${statusOf(err)} ${messageOf(err)})`;
    return [{ type: 'merge.refused', key: `${cmd.key}/refused`, at, ...ref, error }];
  };
  // GitHub's workflow-file rule: when the commit brings workflow files itself, the refusal is
  // the step's; else the branch lags the default branch's workflow files (workflow-rule.ts): it
  // catches up, and the commit is merged on top.
  const catchUp = async (why: unknown): Promise<RunEvent[]> => {
    const own = await mergeWorkflowRefusal(gh, head, cmd.commit, why);
    if (own) return [{ type: 'merge.refused', key: `${cmd.key}/refused`, at, ...ref, error: own }];
    try {
      return done(await catchUpWithDefaultBranch(gh, cmd.into, cmd.commit, why));
    } catch (err) {
      if (!(err instanceof RunBranchRefused)) throw err;
      return [{ type: 'merge.refused', key: `${cmd.key}/refused`, at, ...ref, error: err.message }];
    }
  };
  if (onHead) {
    try {
      // Not forced: GitHub refuses unless it is a fast-forward, which is exactly the question.
      await updateRef(gh, `heads/${cmd.into}`, cmd.commit, false);
      return done(cmd.commit);
    } catch (err) {
      if (workflowRuleRefusal(err)) return catchUp(err);
      if (!notFastForward(err)) return refused(err);
    }
  }
  try {
    const res = await mergeInto(gh, cmd.into, cmd.commit, cmd.message);
    if (res.status === 201 && res.data) {
      commits.remember(res.data.sha, res.data.commit.tree.sha);
      return done(res.data.sha);
    }
    // 204: already merged (a retried event); the branch head is where it is.
    const now = await readRef(gh, `heads/${cmd.into}`);
    if (now === null) throw new Error(`${cmd.into} is gone: it was deleted while baton merged into it`);
    return done(now);
  } catch (err) {
    if (workflowRuleRefusal(err)) return catchUp(err);
    if (statusOf(err) !== 409) return refused(err);
  }
  const files = await conflictingFiles(gh, cmd.into, cmd.commit);
  const kept = await keptOnStepRef(gh, cmd);
  return [{ type: 'merge.conflicted', key: `${cmd.key}/conflicted`, at, ...ref, files, ...(kept && { branch: kept }) }];
}

/** Points the step's ref at the conflicting commit (apply.ts `stepRef`): its name, or undefined when GitHub refuses it for good (the conflict is still reported). */
async function keptOnStepRef(gh: RepoContext, cmd: MergeStepBranch): Promise<string | undefined> {
  try {
    return await keepStepCommit(gh, cmd.branch, cmd.commit);
  } catch (err) {
    if (!refusedForGood(err)) throw err;
    return undefined;
  }
}

/** Files changed on both sides since the merge base. */
async function conflictingFiles(gh: RepoContext, into: string, commit: string): Promise<string[]> {
  const o = { owner: gh.owner, repo: gh.repo };
  const ours = await gh.octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', { ...o, basehead: `${commit}...${into}` });
  const theirs = await gh.octokit.request('GET /repos/{owner}/{repo}/compare/{basehead}', { ...o, basehead: `${into}...${commit}` });
  const a = new Set((ours.data.files ?? []).map((f) => f.filename));
  const both = (theirs.data.files ?? []).map((f) => f.filename).filter((f) => a.has(f));
  return both.length ? both : (theirs.data.files ?? []).map((f) => f.filename);
}
