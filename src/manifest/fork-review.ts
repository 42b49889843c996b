// `on.pull_request.forks: review`: a fork's pull request runs the workflow on code nobody of
// this repository wrote. Such a workflow may hold only steps that read that code inside the
// agent sandbox and write nothing but baton's own records on the pull request. Deny by default:
// a step kind this list does not name is refused, so a kind added later is refused until
// someone decides it is safe here. One rule for two callers: the validator (semantic.ts) and
// the App's start of a fork run (app/handlers/events.ts), which refuses what the rule refuses
// even if the manifest somehow got past validation.
import { mcpReferences } from './mcp-servers.ts';
import { q } from './diagnostics.ts';
import type { McpServer, Step, Workflow } from './types.ts';

export interface ForkRefusal {
  pointer: string;
  message: string;
  /** The report points at the key (the step's kind) rather than at a value. */
  key?: boolean;
}

const WHY = 'a fork\'s pull request runs code nobody of this repository wrote, so a `forks: review` workflow may only read it sandboxed and write nothing';

/**
 * Why each step may run on a fork's code (the kinds not named here are refused):
 * - agent (with `writes: false`) and review (without `fix`): the agent reads the fork's code in
 *   the sandbox, with the model key only; its result is outputs or one review on the pull request;
 * - ask: questions on the pull request, answered by people;
 * - approve: runs nothing and writes nothing but its question — and it is how a maintainer
 *   looks at a stranger's pull request before any agent reads it (what GitHub's approval for
 *   first-time contributors does for `pull_request` workflows, and cannot do for baton).
 */
const SAFE_KINDS: ReadonlySet<Step['kind']> = new Set(['agent', 'review', 'ask', 'approve']);

/** What a fork run cannot do with `step`, or undefined when it may take it. */
function refusal(step: Step): string | undefined {
  if (!SAFE_KINDS.has(step.kind)) {
    const what: Partial<Record<Step['kind'], string>> = {
      run: 'a `run` step runs a command on the fork\'s code outside any agent',
      checks: 'a `checks` step runs CI on the fork\'s code with this repository\'s token and secrets',
      'pull-request': 'a `pull-request` step opens a pull request from what the run wrote',
      // An App's label starts other automation: a maintainers' `pull_request_target: labeled`
      // job ("safe to test") with the repository's secrets, another baton workflow.
      label: 'a label the App adds to a stranger\'s pull request can start other automation with this repository\'s secrets (a `pull_request_target` job on `labeled`, a workflow\'s `on.labels`), and an agent that read the fork\'s text would choose it',
    };
    return what[step.kind] ?? `a \`${step.kind}\` step is not one a fork run may take`;
  }
  if (step.writes) return 'it writes (`writes: false` makes it read only)';
  if (step.kind === 'review' && step.fix !== undefined) return 'its `fix` step would commit changes';
  return undefined;
}

/**
 * A review of a fork's code is a comment: an App's approval counts toward the reviews branch
 * protection requires, and a verdict an agent reached reading the stranger's text is the
 * stranger's to steer. The host posts a fork run's review as a comment whatever this says
 * (hosts/github/review.ts); the validator says it where the manifest asks for more.
 */
function verdictRefusals(step: Step, i: number): ForkRefusal[] {
  if (step.kind !== 'review') return [];
  return (step.verdicts ?? []).flatMap((v, j) =>
    v === 'comment'
      ? []
      : [{ pointer: `/steps/${i}/review/verdicts/${j}`, message: `step ${q(step.id)} cannot ${v === 'approve' ? 'approve' : 'request changes'} in a workflow with \`on.pull_request.forks: review\`: a review of a fork's code is posted as a comment (\`verdicts: [comment]\`), because an approval by the App counts toward required reviews and the verdict is one the fork's text can steer` }],
  );
}

/** Every reason `wf` cannot review forks' pull requests; empty when it can (or does not ask to). */
export function forkReviewRefusals(wf: Workflow): ForkRefusal[] {
  const on = wf.on.pullRequest;
  if (on?.forks !== 'review') return [];
  const out: ForkRefusal[] = [];
  if (on.pushToHead) {
    out.push({ pointer: '/on/pull_request/push-to-head', message: '`push-to-head: true` cannot go with `forks: review`: nothing is ever pushed to a fork, and a fork run writes nothing' });
  }
  wf.steps.forEach((s, i) => {
    const why = refusal(s);
    if (why === undefined) return;
    out.push({ pointer: `/steps/${i}/${s.kind === 'agent' && s.writes ? 'writes' : stepKey(s)}`, message: `step ${q(s.id)} cannot run in a workflow with \`on.pull_request.forks: review\`: ${why}; ${WHY}`, key: true });
  });
  wf.steps.forEach((s, i) => out.push(...verdictRefusals(s, i)));
  for (const [name, spec] of Object.entries(wf.agents)) {
    for (const [server, def] of Object.entries(spec.mcpServers ?? {})) {
      const reads = readsOf(def);
      if (!reads.length) continue;
      out.push({
        pointer: `/agents/${name}/mcp-servers/${server}`,
        message: `MCP server ${q(server)} of agent ${q(name)} reads ${reads.map((r) => `\${${r}}`).join(', ')} from the worker's environment; in a workflow with \`on.pull_request.forks: review\` the agent works on a fork's code and gets no secret but its model key, so it cannot be handed these`,
        key: true,
      });
    }
  }
  return out;
}

/** The key that names a step's kind in the YAML (`run`, `checks`, `pull-request`…): where the report points. */
function stepKey(s: Step): string {
  return s.kind === 'agent' ? 'agent' : s.kind === 'review' && s.fix !== undefined ? 'review/fix' : s.kind;
}

function readsOf(server: McpServer): string[] {
  const values = 'url' in server ? [server.url, ...Object.values(server.headers ?? {})] : [server.command, ...(server.args ?? []), ...Object.values(server.env ?? {})];
  return [...new Set(values.flatMap(mcpReferences))];
}
