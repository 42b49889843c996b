// How to start the first run, as `baton init` ends: named from the workflows it wrote, so a
// newcomer is never told to add a label that starts nothing.
import type { Workflow } from '../manifest/types.ts';
import { PACKAGE_NAME } from '../names.ts';

/**
 * A workflow whose agents are all `command` stand-ins (local-demo): it needs no API key and
 * is meant for trying baton on a checkout, not for issues on GitHub.
 */
function forLocalRuns(wf: Workflow): boolean {
  const agents = Object.values(wf.agents);
  return agents.length > 0 && agents.every((a) => a.uses === 'command');
}

/**
 * What starts a workflow by itself (`on.pull_request`, `on.issues`, `on.workflow_run`,
 * `on.schedule`), as words, or undefined: such a workflow needs no label to start.
 */
function startsOnItsOwn(wf: Workflow): string | undefined {
  const on = wf.on;
  const when: string[] = [];
  if (on.pullRequest) when.push(`on pull requests (${on.pullRequest.types.join(', ')})`);
  if (on.issues) when.push(`on issues (${on.issues.types.join(', ')})`);
  if (on.workflowRun) {
    const branches = on.workflowRun.branches.length ? ` on ${on.workflowRun.branches.join(', ')}` : '';
    when.push(`when a run of ${on.workflowRun.workflows.map((n) => `\`${n}\``).join(', ')}${branches} ends in ${on.workflowRun.conclusions.join(' or ')}`);
  }
  if (on.schedule?.length) when.push(`on its schedule (${on.schedule.map((c) => `\`${c.cron}\``).join(', ')}, UTC)`);
  return when.length ? when.join('; ') : undefined;
}

/** The sentence(s) that say how to start a run of one of `workflows` (those init wrote). */
export function startHint(workflows: readonly Workflow[]): string {
  const github = workflows.filter((wf) => !forLocalRuns(wf));
  const labelled = github.find((wf) => wf.on.labels.length > 0);
  const commanded = github.find((wf) => wf.on.commands.length > 0);
  const parts: string[] = [];
  // The label goes where the workflow works: a reviewer of pull requests on one, not on an issue.
  const thread = (wf: Workflow) => (wf.on.pullRequest ? 'a pull request' : 'an issue');
  if (labelled) {
    const also = labelled.on.commands[0] ? ` (or comment \`/baton ${labelled.on.commands[0]}\` on it)` : '';
    parts.push(`To start ${labelled.name}, label ${thread(labelled)} \`${labelled.on.labels[0]}\`${also}.`);
  } else if (commanded) {
    parts.push(`To start ${commanded.name}, comment \`/baton ${commanded.on.commands[0]}\` on ${thread(commanded)}.`);
  }
  for (const wf of github) {
    const when = startsOnItsOwn(wf);
    if (when) parts.push(`${wf.name} also starts by itself ${when}.`);
  }
  const local = workflows.find((wf) => !github.includes(wf)) ?? (parts.length ? undefined : workflows[0]);
  if (local) {
    parts.push(`To try ${local.name} on this checkout first: \`npx -y ${PACKAGE_NAME} run ${local.name} --local\`.`);
  }
  return parts.join(' ');
}
