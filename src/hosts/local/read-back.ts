// Reading a step's deliverable back from the checkout before the engine records the step done
// (engine/deliverable.ts): locally the run branch is the result. A writing step's commit must be
// on the run branch and change files; the pull request is the branch (at the run's head) and the
// `gh` line written beside the record; a review of the run's own changes is the reviewer's
// outputs in the record, one posted on a branch standing in for a pull request is its file.
// A local run adds no labels, so none is read back; its questions are asked on the terminal.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Deliverable, ReadBack, RunEvent } from '../../engine/index.ts';
import { failed, git, isAncestor, revParse } from './git.ts';

export interface Found {
  missing: string[];
  found?: string;
}

export function readLocal(repo: string, runDir: string, x: Deliverable): Found {
  switch (x.kind) {
    case 'commit': {
      const onBranch = branchHolds(repo, x.branch, x.head);
      if (onBranch) return { missing: [onBranch] };
      if (tree(repo, x.head) === tree(repo, x.from)) return { missing: [`commit ${x.head.slice(0, 7)} changes no file from where the step started (${x.from.slice(0, 7)})`] };
      return { missing: [], found: `commit ${x.head.slice(0, 7)} on \`${x.branch}\`` };
    }
    case 'pull-request': {
      const onBranch = branchHolds(repo, x.branch, x.head);
      if (onBranch) return { missing: [onBranch] };
      if (x.number === 0 && !existsSync(join(runDir, 'pull-request.sh'))) return { missing: [`the command that opens the pull request (pull-request.sh) was not written`] };
      return { missing: [], found: `branch \`${x.branch}\` at ${x.head.slice(0, 7)}` };
    }
    case 'review':
      // Posted on a branch standing in for a pull request: its file; else the record holds it.
      return { missing: [], found: 'the review in the record' };
    case 'labels':
      return { missing: [`a local run has no issue to label`] };
    case 'questions':
      // Asked and answered on the terminal (run.ts): the answers are the record.
      return { missing: [], found: 'the answers in the record' };
  }
}

/** Why `branch` does not hold `head`, or null when it does. */
function branchHolds(repo: string, branch: string, head: string): string | null {
  const tip = revParse(repo, `refs/heads/${branch}`);
  if (tip === null) return `branch \`${branch}\` does not exist`;
  if (tip !== head && !isAncestor(repo, head, tip)) return `branch \`${branch}\` is at ${tip.slice(0, 7)}, which does not hold ${head.slice(0, 7)}`;
  return null;
}

function tree(repo: string, sha: string): string | null {
  const out = git(repo, ['rev-parse', '--verify', '--quiet', `${sha}^{tree}`], { allowFail: true });
  return failed(out) ? null : out;
}

export function readBackEvent(cmd: ReadBack, { missing, found }: Found): RunEvent {
  return { type: 'deliverable.read', key: `${cmd.key}/read`, at: Date.now(), step: cmd.step, opening: cmd.opening, seq: cmd.seq, missing, ...(found ? { found } : {}) };
}
