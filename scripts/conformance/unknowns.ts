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
import { forkShaRef, forkSuiteHeadBranch } from './scenarios/forks.ts';
import { LIMIT_IDENTITY_BY_HAND, secondaryLimitIdentity, secondaryLimitShape } from './scenarios/rate-limits.ts';
import { refCreateRace } from './scenarios/refs.ts';
import { workflowRunAfterTokenDispatch } from './scenarios/actions.ts';
import { refUpdateWorkflows, workflowRefusalAt } from './scenarios/workflow-files.ts';
import type { Scenario } from './types.ts';

export interface Unknown {
  id: string;
  question: string;
  /** The scenarios that ask it; none where the kit cannot yet. */
  scenarios: readonly Scenario[];
  /** What to set up or run by hand against GitHub: the kit holds one account and one installation. */
  byHand?: string;
  /** Settled by the runner probe (`--runner-probe`), not by a scenario. */
  probe?: boolean;
}

/** The probe's line in the list: how to run it, and its answer when this run ran it. */
export interface ProbeLine {
  /** The probe's summary when it ran in this run; undefined when it did not. */
  summary?: string;
}

export const UNKNOWNS: readonly Unknown[] = [
  {
    id: 'U1',
    question: 'Does `POST git/refs` accept a commit that exists only in a fork (201, 422 "Reference does not exist", or the workflow-file rule)?',
    scenarios: [forkShaRef],
    byHand:
      'needs a second account: with it, fork the sandbox, push a commit to the fork only, and open a pull request from it to the sandbox; then, with the App\'s installation token, `POST /repos/OWNER/REPO/git/refs` with `{"ref":"refs/heads/baton-conformance-u1","sha":"<the fork\'s commit>"}`, once at once and once more a minute later (after GitHub has fetched `refs/pull/<n>/head`); record each answer (status and message) and delete the ref if made',
  },
  { id: 'U2', question: 'Is a `PATCH` of an existing ref compared with the old value or with the default branch\'s workflows?', scenarios: [refUpdateWorkflows] },
  { id: 'U3', question: 'Does a run that `GITHUB_TOKEN` dispatched start `on: workflow_run` when it completes?', scenarios: [workflowRunAfterTokenDispatch] },
  {
    id: 'U4',
    question: 'Are secondary limits counted per installation, per App or per bot account?',
    scenarios: [secondaryLimitIdentity, secondaryLimitShape],
    byHand: LIMIT_IDENTITY_BY_HAND,
  },
  {
    id: 'U5',
    question: 'The runner probe. On `ubuntu-24.04`, `ubuntu-22.04` and `ubuntu-24.04-arm`: `nft` and its version, `/etc/sudoers.d` and the runner\'s sudo rule, `kernel.apparmor_restrict_unprivileged_userns` and unprivileged user namespaces, `/proc` mount options, `resolv.conf`, `RUNNER_TEMP`, `HOME`, cgroups and limits — everything the fence and the worker assume?',
    scenarios: [],
    probe: true,
  },
  { id: 'U6', question: 'What does the loser of a concurrent ref create receive?', scenarios: [refCreateRace] },
  { id: 'U7', question: 'What is the `head_branch` of another App\'s check suite, and of a fork pull request run\'s suite?', scenarios: [checkSuiteHeadBranch, forkSuiteHeadBranch] },
  { id: 'U8', question: 'Where is a workflow-file write through the Git Data API refused: trees, commits or the ref?', scenarios: [workflowRefusalAt] },
];

/** How the probe is run against GitHub: it commits a workflow to a scratch branch and spends hosted-runner minutes, so only when asked. */
export const PROBE_COMMAND = 'npm run conformance -- --repo OWNER/REPO --runner-probe';

/** The list as the kit prints it: each unknown with the answers its scenarios got in `rows`, or what to do by hand. */
export function unknownsList(rows: readonly Row[], againstGitHub: boolean, probe: ProbeLine = {}): string {
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
    if (u.probe === true) {
      lines.push(`  - runner probe: ${probe.summary ?? 'not run in this run'}`);
      lines.push(`  - against GitHub: \`${PROBE_COMMAND}\` (a workflow on a scratch branch, one job per image; the table compares each fact with the emulator's runner)`);
    }
    if (u.byHand !== undefined) lines.push(`  - ${againstGitHub || u.scenarios.length === 0 ? 'by hand' : 'against GitHub, by hand'}: ${u.byHand}`);
  }
  return `${lines.join('\n')}\n`;
}
