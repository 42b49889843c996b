// The run every reliability scenario drives, and what "ended correctly" means for it: a
// plan, two build jobs in parallel, a PR and an agent review — on the real app and worker.
import { expect } from 'vitest';
import { appRequests, startHarness, type AgentScript, type Harness, type HarnessOptions } from '../app/harness.ts';

export const o = { owner: 'acme', repo: 'widgets' };

export const FLOW = `name: flow
on: { labels: ["baton:flow"], commands: [flow] }
agents: { coder: { uses: claude-code }, reviewer: { uses: codex } }
steps:
  - id: plan
    agent: coder
    writes: false
    prompt: "Plan #\${{ issue.number }}"
    outputs: { type: object, required: [tasks], properties: { tasks: { type: array, items: { type: string } } } }
  - id: build
    agent: coder
    for-each: \${{ steps.plan.outputs.tasks }}
    prompt: "Build \${{ item }}"
  - id: pr
    pull-request: { title: "Flow for #\${{ issue.number }}" }
  - id: review
    review: { agent: reviewer, max-rounds: 2, fix: build }
`;

/** A run that asks one question and then writes the answer to a file (no agent). */
export const ASK = `name: ask
on: { labels: ["baton:ask"], commands: [ask] }
steps:
  - id: clarify
    ask: { questions: ["Which file?"] }
  - id: write
    env: { ANSWER: "\${{ steps.clarify.outputs.answers[0] }}" }
    run: echo "$ANSWER" > answer.txt
`;

/** alice opens an issue and labels it `baton:ask`; the run waits for its answer. */
export async function startAsk(h: Harness): Promise<{ number: number; runId: string }> {
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'Ask', body: '' })).data;
  await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:ask'] });
  await h.settle();
  return { number: issue.number, runId: `ask-${issue.number}-1` };
}

export const FLOW_AGENTS: AgentScript = {
  plan: [{ output: { tasks: ['x', 'y'] } }],
  'build/0': [{ write: { 'x.txt': 'x\n' } }],
  'build/1': [{ write: { 'y.txt': 'y\n' } }],
  'review/review': [{ output: { approved: true, summary: 'Both files are there.' } }],
};

export const FLOW_ATTEMPTS = (runId: string) => [`baton ${runId} plan #1`, `baton ${runId} build #1`, `baton ${runId} build[1] #1`, `baton ${runId} review[review] #1`];

export function flowHarness(over: Partial<HarnessOptions> = {}): Promise<Harness> {
  return startHarness({ files: { '.agents/workflows/flow.yml': FLOW }, agents: FLOW_AGENTS, ...over });
}

/** A test user's call, tried again when a fault meant for the app hits it. */
export async function retrying<T>(call: () => Promise<T>): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await call();
    } catch (err) {
      const status = (err as { status?: number }).status ?? 0;
      if (i >= 5 || !(status >= 500 || status === 403)) throw err;
    }
  }
}

export async function labelFlow(h: Harness): Promise<{ number: number; runId: string }> {
  const alice = h.as('alice');
  const issue = (await retrying(() => alice.rest.issues.create({ ...o, title: 'Flow', body: 'Make x and y.' }))).data;
  await retrying(() => alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:flow'] }));
  return { number: issue.number, runId: `flow-${issue.number}-1` };
}

/** Worker runs started on the emulator's Actions, by run-name. */
export const attempts = (h: Harness): string[] => [...h.runner.store.runs.values()].map((r) => r.displayTitle);

/** Successful dispatch requests the app made (one per worker run if nothing went out twice). */
export const dispatches = (h: Harness): number => appRequests(h.emu).filter((r) => r.route.endsWith('/dispatches') && r.status < 300).length;

/**
 * The run ended correctly: one trusted status comment saying succeeded with every step
 * done, each attempt dispatched once, the PR open on the run branch with every change,
 * and the aggregate check green.
 */
export async function expectFlowSucceeded(h: Harness, number: number, runId: string): Promise<void> {
  h.emu.faults.clear();
  const alice = h.as('alice');
  const records = (await alice.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: number, per_page: 100 })).filter((c) => c.user?.login === 'baton[bot]' && c.body?.includes('baton:record'));
  expect(records).toHaveLength(1);
  const record = records[0]!.body!;
  expect(record).toContain(`run \`${runId}\` — succeeded`);
  for (const step of ['plan', 'build', 'pr', 'review']) expect(record).toMatch(new RegExp(`\\| ✅ \\| ${step} \\|`));
  expect([...attempts(h)].sort()).toEqual(FLOW_ATTEMPTS(runId).sort());
  expect(dispatches(h)).toBe(FLOW_ATTEMPTS(runId).length);
  const prs = (await alice.rest.pulls.list({ ...o, state: 'open' })).data.filter((p) => p.head.ref === `baton/${runId}`);
  expect(prs).toHaveLength(1);
  const head = prs[0]!.head.sha;
  const tree = (await alice.rest.git.getTree({ ...o, tree_sha: head, recursive: 'true' })).data.tree.map((t) => t.path);
  expect(tree).toEqual(expect.arrayContaining(['x.txt', 'y.txt']));
  const checks = (await alice.rest.checks.listForRef({ ...o, ref: head })).data.check_runs;
  expect(checks.filter((c) => c.name === 'baton / flow').map((c) => c.conclusion)).toEqual(['success']);
  h.emu.assertNoViolations();
}
