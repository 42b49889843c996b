// Workflows (and what their fake agents do) for stories of people acting on a running run:
// a human review on the run's PR, a step that fails and is retried, an approval gate. Shared by
// the one-process tests (controls.test.ts) and the same stories told to several App replicas.
import type { Octokit } from '@octokit/rest';
import { openLabelled, type AgentScript, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

/** An agent step, its PR, and a reviewer whose gate a human review can send to a fix round. */
export const HUMAN = `name: human
on: { labels: ["baton:human"] }
agents: { coder: { uses: claude-code }, reviewer: { uses: codex } }
steps:
  - id: implement
    agent: coder
    prompt: "Implement the change"
  - id: pr
    pull-request: { title: "Change for #\${{ issue.number }}" }
  - id: review
    review: { agent: reviewer, max-rounds: 2, fix: implement }
`;

/** The reviewer is at work (hanging) until a human's review stops it; the fix round adds a test; the reviewer then approves. */
export const HUMAN_AGENTS: AgentScript = {
  implement: [{ write: { 'a.txt': 'a\n' } }],
  'review/review': [{ hang: true, partial: 'Reading the diff…' }, { output: { approved: true, summary: 'Fine now.' } }],
  'review/fix-1': [{ write: { 'a.txt': 'a, tested\n', 'a.test.txt': 'test a\n' } }],
};

/**
 * Starts the HUMAN story and waits until its reviewer is at work, every App process done with
 * what led there; returns the thread, the run and its PR.
 */
export async function reviewerAtWork(h: Harness): Promise<{ n: number; runId: string; pr: number }> {
  const n = await openLabelled(h, 'baton:human');
  const runId = `human-${n}-1`;
  await h.waitFor('the reviewer to be at work', () => h.agentCalls().some((c) => c.name === 'codex'));
  await h.emu.webhooks.idle();
  for (const app of h.apps) await app.runs.idle();
  const pr = (await h.as('alice').rest.pulls.list({ ...o, state: 'open' })).data.find((p) => p.head.ref === `baton/${runId}`);
  if (!pr) throw new Error(`run ${runId} opened no pull request`);
  return { n, runId, pr: pr.number };
}

/** The paths on a run's branch (what the run has merged so far). */
export async function runBranchFiles(h: Harness, runId: string): Promise<string[]> {
  const alice = h.as('alice');
  const head = (await alice.rest.git.getRef({ ...o, ref: `heads/baton/${runId}` })).data.object.sha;
  return (await alice.rest.git.getTree({ ...o, tree_sha: head, recursive: 'true' })).data.tree.map((t) => t.path);
}

/** A human's "Request changes" on the run's PR, with one line comment. */
export const HUMAN_REVIEW = { event: 'REQUEST_CHANGES' as const, body: 'Please add a test for a.', comments: [{ path: 'a.txt', line: 1, body: 'Cover this line.' }] };

export const FLAKY = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: build
    agent: coder
    prompt: "Build it"
  - id: after
    run: echo done > after.txt
`;

/** The build's first attempt crashes (the run fails); the next one writes built.txt. */
export const FLAKY_AGENTS: AgentScript = { build: [{ exit: 1, crash: 'Error: the model is overloaded' }, { write: { 'built.txt': 'ok\n' } }] };

export const SHIP = `name: ship
on: { labels: ["baton:ship"] }
steps:
  - id: build
    run: echo built > built.txt
  - id: gate
    approve: { roles: [admin], message: "Ship the build?" }
  - id: ship
    run: echo shipped > shipped.txt
`;

/** Two agent steps with a question between them, then a PR: a run that waits on people mid-way. */
export const WAIT = `name: wait
on: { labels: ["baton:wait"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: a, agent: coder, prompt: "a" }
  - id: ask
    ask: { questions: ["Go on?"] }
  - { id: b, agent: coder, prompt: "b" }
  - id: pr
    pull-request: { title: "Wait for #\${{ issue.number }}" }
`;

/** A maintainer adds CI to the default branch (a person's write may change workflow files; the App's and a GITHUB_TOKEN's may not). */
export async function addLintWorkflowToMain(maintainer: Octokit): Promise<void> {
  const lint = 'name: lint\non: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - run: "true"\n';
  await maintainer.rest.repos.createOrUpdateFileContents({ ...o, path: '.github/workflows/lint.yml', message: 'Add lint', content: Buffer.from(lint).toString('base64') });
}

/** The files a PR from `branch` shows (the three-dot compare with main, as GitHub's diff does). */
export async function prFiles(reader: Octokit, branch: string): Promise<string[]> {
  const diff = await reader.rest.repos.compareCommitsWithBasehead({ ...o, basehead: `main...${branch}` });
  return (diff.data.files ?? []).map((f) => f.filename).sort();
}

/** A run step and a PR, nothing else: the smallest run that ends in a pull request (refs tests, bench). */
/**
 * An agent's change held at an `approve` step before a `checks` gate on `names`: CI reports on
 * the head while no gate waits (started by the label `baton:<name>`).
 */
export function heldBeforeChecks(name: string, names: string[]): string {
  return `name: ${name}
on: { labels: ["baton:${name}"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix #\${{ issue.number }}"
  - id: hold
    approve: { message: "Go on?" }
  - id: ci
    checks: { names: [${names.join(', ')}] }
`;
}

export const HELLO = `name: hello
on: { labels: ["baton:hello"] }
steps:
  - id: greet
    run: echo "hello" > hello.txt
  - id: pr
    pull-request: { title: "Hello for #\${{ issue.number }}" }
`;
