// `baton prune`: what finished local runs leave behind in the repository, removed. Each
// finished run's worktrees (.baton/worktrees/<run>/, also those a killed process left)
// and branches (its step branches, and its run branch, except a succeeded run's result
// that is neither pushed nor merged into the checked-out branch). Runs that are running,
// waiting for a person or driven by a process are never touched. Records in .baton/runs/
// stay: they are the history `baton status` reads.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isTerminal, runBranch } from '../../engine/index.ts';
import { failed, git, isAncestor, removeWorktree, revParse } from './git.ts';
import { readRun } from './session.ts';
import { listRunIds, RunStore, worktreesDir } from './store.ts';
import { statusText, waitingFor } from './waiting.ts';

export interface PrunedRun {
  runId: string;
  status: string;
  /** `worktree <path>` and `branch <name>`, removed (or to be, on a dry run). */
  removed: string[];
  /** What stays, with the reason. */
  kept: string[];
}

export interface PruneReport {
  pruned: PrunedRun[];
  skipped: { runId: string; why: string }[];
}

export function pruneRuns(repo: string, dryRun: boolean): PruneReport {
  const report: PruneReport = { pruned: [], skipped: [] };
  for (const runId of listRunIds(repo)) {
    const store = RunStore.open(repo, runId);
    const holder = store.holder();
    const state = store.state();
    if (holder !== null) {
      report.skipped.push({ runId, why: `driven by process ${holder}` });
      continue;
    }
    // `idle` with no process driving it: a run the engine refused at its start.
    if (!state || !(isTerminal(state.status) || state.status === 'idle')) {
      report.skipped.push({ runId, why: state ? statusText(state.status, waitingOf(store)) : 'not started' });
      continue;
    }
    const run: PrunedRun = { runId, status: state.status, removed: [], kept: [] };
    for (const path of worktreesOf(repo, runId)) {
      if (!dryRun) removeWorktree(repo, path);
      run.removed.push(`worktree ${relative(repo, path)}`);
    }
    if (!dryRun) rmSync(worktreesDir(repo, runId), { recursive: true, force: true });
    const resultBranch = runBranch(runId);
    for (const branch of [...branchesUnder(repo, `baton/steps/${runId}/`), resultBranch]) {
      const sha = revParse(repo, `refs/heads/${branch}`);
      if (sha === null) continue;
      if (branch === resultBranch && state.status === 'succeeded' && !pushedOrMerged(repo, sha)) {
        run.kept.push(`branch ${branch} (the run's result, neither pushed nor merged: delete it with git branch -D ${branch})`);
        continue;
      }
      // `git branch -D` refuses a branch checked out somewhere, which must stay.
      if (!dryRun && failed(git(repo, ['branch', '-D', '--quiet', branch], { allowFail: true }))) {
        run.kept.push(`branch ${branch} (checked out; git branch -D refused it)`);
        continue;
      }
      run.removed.push(`branch ${branch}`);
    }
    if (run.removed.length) report.pruned.push(run);
  }
  return report;
}

function waitingOf(store: RunStore): ReturnType<typeof waitingFor> {
  try {
    const { state, workflow } = readRun(store);
    return waitingFor(state, workflow);
  } catch {
    return [];
  }
}

function worktreesOf(repo: string, runId: string): string[] {
  const dir = worktreesDir(repo, runId);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => join(dir, e.name))
    .sort();
}

function branchesUnder(repo: string, prefix: string): string[] {
  const out = git(repo, ['for-each-ref', '--format=%(refname:short)', `refs/heads/${prefix}`]);
  return out.split('\n').filter(Boolean).sort();
}

/** The commit is in the checked-out branch, or on a remote-tracking branch (pushed). */
function pushedOrMerged(repo: string, sha: string): boolean {
  if (revParse(repo, 'HEAD') !== null && isAncestor(repo, sha, 'HEAD')) return true;
  return git(repo, ['branch', '--remotes', '--contains', sha]).trim() !== '';
}
