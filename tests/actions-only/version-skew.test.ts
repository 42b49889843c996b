// Actions-only mode: baton.yml (the run's driver) and the worker workflow pinned to two
// releases of different lines, as after an upgrade of one file by hand. The worker stops before
// its agent, the apply job writes nothing of it and says so in the thread, naming both versions
// and `baton update`, and the run ends (src/compat.ts). The files are what `baton init` writes
// (the worker's with `--action-ref` at the other release: this checkout's Action under a
// package.json of that version, baton-action.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { lineOf, ownStamp } from '../../src/compat.ts';
import { batonActionAt } from '../emulator/actions/baton-action.ts';
import { initFiles, startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const WORKER = '.github/workflows/baton-worker.yml';
const QUICK = `name: quick
on: { labels: ["baton:quick"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}"
    retries: 0
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

let h: ActionsOnly | undefined;
let close: (() => void) | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  close?.();
});

describe('Actions-only: a worker workflow of another baton than baton.yml', () => {
  it('is refused by its apply job in the thread, naming both versions and baton update; the run ends and no agent ran', async () => {
    const run = ownStamp().version;
    const [major, minor] = run.split('.').map(Number) as [number, number];
    const other = batonActionAt(major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`);
    close = other.close;
    const worker = (await initFiles(['--mode', 'actions', '--workflows', 'fix-issue', '--action-ref', other.ref]))[WORKER]!;
    h = await startActionsOnly({ init: ['--mode', 'actions', '--workflows', 'fix-issue'], files: { '.agents/workflows/quick.yml': QUICK, [WORKER]: worker }, actions: other.map, agentScript: [{ write: { 'src/fix.txt': 'fixed\n' } }] });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.', labels: ['baton:quick'] })).data;
    await h.settle();

    const comments = (await alice.rest.issues.listComments({ ...o, issue_number: issue.number })).data;
    const record = comments.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';
    expect(record).toContain(`run \`quick-${issue.number}-1\` — failed`);
    const otherVersion = other.ref.replace(/^.*@v/, '');
    expect(record).toContain(`refused after 1 attempt: The apply job of the worker workflow is baton ${otherVersion} (task/result format 1), but this run is baton ${run} (format 1): refused. They work together only within baton ${lineOf(run)}`);
    expect(record).toContain(`npx -y @baton-dev/baton@${run} update`);
    expect(h.agentCalls()).toBe(0);
    // Every job ended: nothing waits on the refused attempt.
    expect([...h.runner.store.runs.values()].every((r) => r.status === 'completed')).toBe(true);
  }, 180_000);
});
