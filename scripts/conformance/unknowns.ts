/**
 * The unknowns no public source settles (issue "GitHub fidelity, round 3", U1–U8) and the runner
 * probe: for each, the question, the scenario that asks GitHub (its row in the table above this
 * list, with the emulator's answer under each reading), and what to do by hand where the kit
 * cannot ask on its own (a second account or installation, GitHub's hosted runners). The kit
 * prints this list after its table; docs/conformance.md says how to feed an answer back.
 */
import type { Row } from './compare.ts';
import { cell } from './report.ts';
import { checkSuiteHeadBranch } from './scenarios/check-suites.ts';
import { forkSuiteHeadBranch } from './scenarios/forks.ts';
import { secondaryLimitShape } from './scenarios/rate-limits.ts';
import { refCreateRace } from './scenarios/refs.ts';
import { workflowRunAfterTokenDispatch } from './scenarios/actions.ts';
import { refUpdateWorkflows, workflowRefusalAt } from './scenarios/workflow-files.ts';
import type { Scenario } from './types.ts';

export interface Unknown {
  id: string;
  question: string;
  /** The scenarios that ask it; none where the kit cannot yet. */
  scenarios: readonly Scenario[];
  /** What to set up or run by hand: the kit holds one account, one installation, and no runner. */
  byHand?: string;
}

export const UNKNOWNS: readonly Unknown[] = [
  {
    id: 'U1',
    question: 'Does `POST git/refs` accept a commit that exists only in a fork (201, 422 "Reference does not exist", or the workflow-file rule)?',
    scenarios: [],
    byHand:
      'needs a second account: fork the sandbox, push a commit to the fork only, open a pull request from it, then create `refs/heads/baton-conformance-u1` in the sandbox at that commit with the App\'s installation token, and once more at `refs/pull/<n>/head`\'s commit after GitHub has fetched it; record each answer (status and message)',
  },
  { id: 'U2', question: 'Is a `PATCH` of an existing ref compared with the old value or with the default branch\'s workflows?', scenarios: [refUpdateWorkflows] },
  { id: 'U3', question: 'Does a run that `GITHUB_TOKEN` dispatched start `on: workflow_run` when it completes?', scenarios: [workflowRunAfterTokenDispatch] },
  {
    id: 'U4',
    question: 'Are secondary limits counted per installation, per App or per bot account?',
    scenarios: [secondaryLimitShape],
    byHand:
      'needs one App installed on two accounts: spend more than 80 writes within a minute through installation A (issue comments on a sandbox issue), then write once through installation B; a 403/429 secondary limit on B means the count is per App or bot account, none means per installation (App and bot account cannot be told apart with installation tokens: both write as the one `[bot]` account)',
  },
  {
    id: 'U5',
    question: 'The runner probe. On `ubuntu-24.04`, `ubuntu-22.04` and `ubuntu-24.04-arm`: is `nft` present; the mode of `/etc/sudoers.d`; `kernel.apparmor_restrict_unprivileged_userns`; `/proc` mount options; `resolv.conf`; `RUNNER_TEMP` and `HOME`?',
    scenarios: [],
    byHand:
      'the runner probe, not yet automated: commit a workflow to the sandbox with a job per image (`runs-on: [ubuntu-24.04, ubuntu-22.04, ubuntu-24.04-arm]`) running `command -v nft; stat -c %a /etc/sudoers.d; sysctl -n kernel.apparmor_restrict_unprivileged_userns; findmnt -no OPTIONS /proc; cat /etc/resolv.conf; echo "$RUNNER_TEMP $HOME"`, and compare each job\'s log with what the emulator\'s runner models (tests/emulator/actions/runner-env.ts, sandbox.ts)',
  },
  { id: 'U6', question: 'What does the loser of a concurrent ref create receive?', scenarios: [refCreateRace] },
  { id: 'U7', question: 'What is the `head_branch` of another App\'s check suite, and of a fork pull request run\'s suite?', scenarios: [checkSuiteHeadBranch, forkSuiteHeadBranch] },
  { id: 'U8', question: 'Where is a workflow-file write through the Git Data API refused: trees, commits or the ref?', scenarios: [workflowRefusalAt] },
];

/** The list as the kit prints it: each unknown with the answers its scenarios got in `rows`, or what to do by hand. */
export function unknownsList(rows: readonly Row[], againstGitHub: boolean): string {
  const lines = ['', 'Unknowns (docs/conformance.md, "The unknowns"):', ''];
  for (const u of UNKNOWNS) {
    lines.push(`- ${u.id}: ${u.question}`);
    for (const s of u.scenarios) {
      const row = rows.find((r) => r.scenario === s.name);
      if (row === undefined) {
        lines.push(`  - scenario "${s.name}": not run (--only)`);
        continue;
      }
      const emulator = row.readings === undefined ? cell(row.emulator) : row.readings.map((r) => `${r.value} → ${cell(r.outcome)}`).join(' ; ');
      lines.push(`  - scenario "${s.name}": emulator ${emulator}${againstGitHub ? `; GitHub ${cell(row.github)}` : ''}; verdict ${row.verdict}`);
    }
    if (u.byHand !== undefined) lines.push(`  - ${againstGitHub || u.scenarios.length === 0 ? 'by hand' : 'against GitHub, by hand'}: ${u.byHand}`);
  }
  return `${lines.join('\n')}\n`;
}
