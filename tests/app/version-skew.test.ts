// Upgrades never stop a workflow silently (src/compat.ts): a repository whose worker workflow
// runs another baton than the App's is told so in the thread, with both versions and
// `baton update`, and the run ends as a failed attempt instead of waiting; after the update a
// retry finishes it. A worker of the App's line (another patch) works on. The worker workflows
// are what `baton init --action-ref` writes; the other release is this checkout's Action under
// a package.json of that version (baton-action.ts).
import { afterEach, describe, expect, it } from 'vitest';
import { lineOf, ownStamp } from '../../src/compat.ts';
import { initFiles } from '../actions-only/harness.ts';
import { batonActionAt } from '../emulator/actions/baton-action.ts';
import { openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const WORKER = '.github/workflows/baton-worker.yml';
const QUICK = `name: quick
on: { labels: ["baton:quick"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix #\${{ issue.number }}"
    retries: 1
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

/** A release of another line than this baton's: the next minor below 1.0.0, the next major from it on. */
function otherLine(version: string): string {
  const [major, minor] = version.split('.').map(Number) as [number, number];
  return major === 0 ? `0.${minor + 1}.0` : `${major + 1}.0.0`;
}

/** The same line, another patch. */
const samePatchLine = (version: string): string => version.replace(/^(\d+\.\d+)\.\d+.*$/, '$1.99');

/** The worker workflow `baton init --mode app` writes for QUICK's backend, using baton's Action at `ref`. */
async function workerAt(ref?: string): Promise<string> {
  const files = await initFiles(['--mode', 'app', '--workflows', 'fix-issue', ...(ref ? ['--action-ref', ref] : [])]);
  return files[WORKER]!;
}

let h: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const c of cleanups.splice(0)) c();
});

describe('app: a worker of another baton', () => {
  it('is refused in the thread naming both versions and baton update; the run ends, and a retry after the update finishes it', async () => {
    const run = ownStamp().version;
    const other = batonActionAt(otherLine(run));
    cleanups.push(other.close);
    h = await startHarness({
      files: { '.agents/workflows/quick.yml': QUICK, [WORKER]: await workerAt(other.ref) },
      actions: other.map,
      agents: { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] },
    });
    const n = await openLabelled(h, 'baton:quick');
    const runId = `quick-${n}-1`;
    await h.settle();

    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — failed`);
    // Both attempts (retries: 1) refused by the App (not a crash the worker reported), exact about who meets.
    expect(record).toContain(`failed: refused after 2 attempts: The worker is baton ${otherLine(run)} (task/result format 1), but this run is baton ${run} (format 1): refused.`);
    expect(record).toContain(`They work together only within baton ${lineOf(run)} (task/result format 1).`);
    expect(record).toContain(`npx -y @baton-dev/baton@${run} update`);
    expect(record).toContain('/baton retry implement');
    // The worker stopped before its agent: a refused version spends nothing.
    expect(h.agentCalls()).toEqual([]);
    const attempts = [...h.runner.store.runs.values()].filter((r) => r.displayTitle.startsWith(`baton ${runId} implement`));
    expect(attempts).toHaveLength(2);

    // What `baton update` at the App's version writes, committed; then the step again.
    const alice = h.as('alice');
    const current = await alice.rest.repos.getContent({ ...o, path: WORKER });
    const sha = Array.isArray(current.data) ? undefined : current.data.sha;
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path: WORKER, message: 'baton update', content: Buffer.from(await workerAt()).toString('base64'), ...(sha && { sha }) });
    await alice.rest.issues.createComment({ ...o, issue_number: n, body: '/baton retry implement' });
    await h.settle();
    expect(await h.record(n)).toContain(`run \`${runId}\` — succeeded`);
    expect(h.agentCalls()).toHaveLength(1);
  }, 180_000);

  it('works on with a worker of the same line (another patch)', async () => {
    const near = batonActionAt(samePatchLine(ownStamp().version));
    cleanups.push(near.close);
    h = await startHarness({
      files: { '.agents/workflows/quick.yml': QUICK, [WORKER]: await workerAt(near.ref) },
      actions: near.map,
      agents: { implement: [{ write: { 'src/fix.txt': 'fixed\n' } }] },
    });
    const n = await openLabelled(h, 'baton:quick');
    await h.settle();
    expect(await h.record(n)).toContain(`run \`quick-${n}-1\` — succeeded`);
  }, 120_000);
});
