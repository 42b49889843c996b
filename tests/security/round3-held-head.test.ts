// Round 3, attack 1's wider class: every agent commit baton put on `baton/<run>` was a push by
// the App, so the repository's push CI ran agent-written code with its secrets after every step,
// whatever `approve` step the manifest had. Now, while an `approve` step has not passed, the run's
// head is held off the branch (under refs/baton/heads/<run>, which starts no push workflow): push
// CI never sees the agent's commit before a person approved it, and does after. App mode, and
// Actions-only with --app-token (whose App token starts workflows too).
import { afterEach, describe, expect, it } from 'vitest';
import type { Emulator } from '../emulator/emulator.ts';
import { startHarness, type Harness } from '../app/harness.ts';
import { startActionsOnly, type ActionsOnly } from '../actions-only/harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

const GATED = `name: gated
on: { labels: ["baton:gated"] }
agents:
  coder: { uses: claude-code }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}"
  - id: look
    needs: [implement]
    approve:
      roles: [admin, maintain]
      message: Read the change, then comment \`/baton approve\`.
  - id: pr
    needs: [look]
    pull-request: { title: "Fix #\${{ issue.number }}" }
`;

/** The repository's CI: every push, any branch, with a secret. */
const CI = `name: ci
on: push
jobs:
  test:
    runs-on: ubuntu-latest
    env:
      DEPLOY_TOKEN: \${{ secrets.DEPLOY_TOKEN }}
    steps:
      - run: "true"
`;

let app: Harness | undefined;
let actions: ActionsOnly | undefined;
afterEach(async () => {
  await app?.close();
  await actions?.close();
  app = actions = undefined;
});

type Runner = { store: { runs: Map<number, { path: string; event: string; headSha: string; ref: string }> } };

/** The push runs of ci.yml whose commit has the agent's file. */
async function ciOnAgentCode(emu: Emulator, runner: Runner): Promise<string[]> {
  const git = emu.git(o.owner, o.repo);
  const out: string[] = [];
  for (const r of runner.store.runs.values()) {
    if (r.path !== '.github/workflows/ci.yml' || r.event !== 'push') continue;
    const files = await git.lsTree(r.headSha, true, 'src');
    if (files.some((f) => f.path === 'src/fix.txt')) out.push(r.ref);
  }
  return out;
}

async function gatedRun(h: { emu: Emulator; runner: Runner; settle: () => Promise<unknown>; as: (login: string) => ReturnType<Harness['as']> }): Promise<{ issue: number; runId: string }> {
  const alice = h.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.' })).data.number;
  await alice.rest.issues.addLabels({ ...o, issue_number: issue, labels: ['baton:gated'] });
  await h.settle();
  const runId = `gated-${issue}-1`;
  // Waiting for the approval: the agent's commit is on no branch, and push CI never ran on it.
  const git = h.emu.git(o.owner, o.repo);
  const held = await git.resolveRef(`refs/baton/heads/${runId}`);
  expect(held).not.toBeNull();
  expect((await git.lsTree(held!, true, 'src')).map((f) => f.path)).toContain('src/fix.txt');
  for (const b of await git.listRefs('refs/heads/')) expect({ branch: b.ref, agentCode: await git.isAncestor(held!, b.sha) }).toEqual({ branch: b.ref, agentCode: false });
  expect(await ciOnAgentCode(h.emu, h.runner)).toEqual([]);
  // Approved: the branch takes the head, and the pull request opens from it.
  await alice.rest.issues.createComment({ ...o, issue_number: issue, body: '/baton approve' });
  await h.settle();
  expect(await git.resolveRef(`refs/heads/baton/${runId}`)).toBe(held);
  expect(await ciOnAgentCode(h.emu, h.runner)).toEqual([`refs/heads/baton/${runId}`]);
  return { issue, runId };
}

describe('round 3: agent work reaches a branch push CI runs on only after the approval', () => {
  it('App', async () => {
    app = await startHarness({ files: { '.agents/workflows/gated.yml': GATED, '.github/workflows/ci.yml': CI }, agents: { implement: [{ write: { 'src/fix.txt': 'agent code\n' } }] }, secrets: { DEPLOY_TOKEN: 'deploy-token' }, triggerOnWebhooks: true });
    const { issue, runId } = await gatedRun(app);
    expect(await app.record(issue)).toContain(`run \`${runId}\` — succeeded`);
    app.emu.assertNoViolations();
  }, 120_000);

  it('Actions-only with --app-token', async () => {
    actions = await startActionsOnly({
      init: ['--mode', 'actions', '--app-token', '--workflows', 'fix-issue'],
      files: { '.agents/workflows/gated.yml': GATED, '.github/workflows/ci.yml': CI },
      agentScript: [{ write: { 'src/fix.txt': 'agent code\n' }, reply: { done: true } }],
      appSecrets: true,
    });
    const { issue, runId } = await gatedRun(actions);
    const records = (await actions.as('alice').rest.issues.listComments({ ...o, issue_number: issue })).data.filter((c) => c.body?.includes('baton:record'));
    expect(records[0]!.body).toContain(`run \`${runId}\` — succeeded`);
  }, 240_000);
});
