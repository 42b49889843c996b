// What baton.yml must subscribe to in Actions-only mode. GitHub starts a workflow only for the
// events and activity types its `on:` lists, so a manifest's `on.pull_request`, `on.issues`,
// `on.workflow_run` or `on.schedule` can never start a run unless baton.yml lists them too.
// Derived from the manifests alone (pure), in a fixed order, so that writing it again changes
// nothing. GitHub's own filters of a manifest (`branches`, `paths`) are NOT copied: baton.yml
// serves every workflow, and baton applies each manifest's filters itself.
import { SWEEP_CRON } from '../app/sweep-cron.ts';
import { ISSUES_TYPES, PULL_REQUEST_TYPES, type Workflow } from '../manifest/types.ts';

export interface EventSubscriptions {
  /** `on.pull_request.types`: baton's own (labeled, closed) first, then the manifests' in GitHub's order. */
  pullRequest: string[];
  /**
   * `on.pull_request_target.types`: the types of the manifests with `forks: review`, in GitHub's
   * order; empty: no such trigger. A fork's `pull_request` run has a read-only token and no
   * secrets, so a fork's pull request reaches baton through `pull_request_target` (the base
   * repository's workflow, token and secrets; baton's jobs never check out the fork's code).
   */
  pullRequestTarget: string[];
  /** `on.issues.types`: labeled first, then the manifests'. */
  issues: string[];
  /** `on.workflow_run.workflows` (types: [completed]), sorted; empty: no workflow_run trigger. */
  workflowRun: string[];
  /** `on.schedule` crons: the sweep's first, then the manifests' sorted. */
  schedule: string[];
}

/** What baton.yml subscribes to for baton's own work (labels, cleanup, the sweep). */
export const BATON_PULL_REQUEST_TYPES = ['labeled', 'closed'] as const;
export const BATON_ISSUES_TYPES = ['labeled'] as const;

/**
 * The events of `on:` whose value baton derives (and `baton update` rewrites); any other
 * event a user lists in baton.yml is theirs and stays.
 */
export const OWNED_EVENTS = ['issues', 'pull_request', 'pull_request_target', 'issue_comment', 'pull_request_review', 'check_suite', 'check_run', 'status', 'workflow_run', 'schedule'] as const;

/** Plain code-unit order: the same on every machine, whatever its locale. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function ordered(own: readonly string[], known: readonly string[], wanted: Iterable<string>): string[] {
  const want = new Set(wanted);
  const rest = [...known.filter((t) => want.has(t)), ...[...want].filter((t) => !known.includes(t)).sort(byCodeUnit)];
  return [...new Set([...own, ...rest])];
}

/**
 * @param ciWorkflowName the `name:` GitHub knows a `checks` step's `workflow:` file by
 *   (undefined: no such file). baton dispatches that CI itself and, in Actions-only mode,
 *   hears it finish only through `workflow_run` (warn-token.ts): so baton.yml watches it too.
 */
export function eventSubscriptions(workflows: readonly Workflow[], ciWorkflowName: (file: string) => string | undefined = () => undefined): EventSubscriptions {
  const pull = new Set<string>();
  const target = new Set<string>();
  const issues = new Set<string>();
  const watched = new Set<string>();
  const crons = new Set<string>();
  for (const w of workflows) {
    for (const t of w.on.pullRequest?.types ?? []) pull.add(t);
    if (w.on.pullRequest?.forks === 'review') for (const t of w.on.pullRequest.types) target.add(t);
    for (const t of w.on.issues?.types ?? []) issues.add(t);
    for (const name of w.on.workflowRun?.workflows ?? []) watched.add(name);
    for (const s of w.on.schedule ?? []) crons.add(s.cron);
    for (const step of w.steps) {
      if (step.kind !== 'checks' || step.workflow === undefined) continue;
      const name = ciWorkflowName(step.workflow);
      if (name !== undefined) watched.add(name);
    }
  }
  crons.delete(SWEEP_CRON);
  return {
    pullRequest: ordered(BATON_PULL_REQUEST_TYPES, PULL_REQUEST_TYPES, pull),
    pullRequestTarget: target.size ? ordered([], PULL_REQUEST_TYPES, target) : [],
    issues: ordered(BATON_ISSUES_TYPES, ISSUES_TYPES, issues),
    workflowRun: [...watched].sort(byCodeUnit),
    schedule: [SWEEP_CRON, ...[...crons].sort(byCodeUnit)],
  };
}

/** A YAML scalar for a value from a manifest: single-quoted, or JSON's double quotes when it holds a control character. */
function scalar(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f\u2028\u2029]/.test(s) ? JSON.stringify(s) : `'${s.replaceAll("'", "''")}'`;
}

/** A flow sequence of activity types (words from the manifest schema's enums). */
const types = (list: readonly string[]): string => `[${list.join(', ')}]`;

/** baton.yml's `on:` block, its lines (the first is `on:`). */
export function onBlock(s: EventSubscriptions): string[] {
  const lines = [
    'on:',
    "  # labeled starts a run by label; the other types are the ones .agents/workflows/*.yml start on (baton update keeps them in step).",
    `  issues: { types: ${types(s.issues)} }`,
    "  # closed: a finished run's branches are deleted once its pull request is merged or closed.",
    `  pull_request: { types: ${types(s.pullRequest)} }`,
    ...(s.pullRequestTarget.length
      ? [
          "  # A fork's pull request (on.pull_request.forks: review): this workflow as the default branch has it, never the fork's code.",
          `  pull_request_target: { types: ${types(s.pullRequestTarget)} }`,
        ]
      : []),
    '  issue_comment: { types: [created] }',
    '  pull_request_review: { types: [submitted] }',
    '  check_suite: { types: [completed] }',
    '  check_run: { types: [completed] }',
    '  status:',
  ];
  if (s.workflowRun.length) {
    lines.push(
      '  # The workflows a manifest watches (on.workflow_run) or dispatches as CI (checks.workflow), by their `name:`.',
      '  workflow_run:',
      `    workflows: [${s.workflowRun.map(scalar).join(', ')}]`,
      '    types: [completed]',
    );
  }
  lines.push(
    "  # Deadlines without events (a hung worker, a budget's minutes, a question's timeout): the sweep, every 5 minutes.",
    '  # GitHub runs schedules at most every 5 minutes and may start them late or drop them under load.',
  );
  if (s.schedule.length === 1) lines.push(`  schedule: [{ cron: ${scalar(s.schedule[0]!)} }]`);
  else lines.push('  # The other crons are the manifests\' on.schedule.', '  schedule:', ...s.schedule.map((c) => `    - cron: ${scalar(c)}`));
  return lines;
}
