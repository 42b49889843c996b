// A repository set up by an earlier baton, under an App upgraded to this one: the files
// `baton init` wrote before they carried their version (the newest such shape of this
// repository's history, tests/fixtures/init-shapes/) are refused in the thread, naming the
// versions and `baton update`, and the run ends; `baton update` (the command, on those files)
// committed, a retry finishes the run and the library's workflows run green. That update
// leaves what this baton's init writes from every shape is tests/init/upgrade-shapes.test.ts.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { FILES_VERSION_VAR, MIN_FILES_VERSION, ownStamp } from '../../src/compat.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { initShapes, removeRepos, writeRepo } from '../init/init-shapes.ts';
import { openLabelled, startHarness, type Harness } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const QUICK = `name: quick
on: { labels: ["baton:quick"], commands: [quick] }
agents: { coder: { uses: claude-code } }
steps:
  - id: implement
    agent: coder
    prompt: "Fix #\${{ issue.number }}"
    retries: 0
  - id: pr
    pull-request: { title: "Fix #\${{ issue.number }}", draft: true }
`;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  removeRepos();
});

/** `baton update` on a copy of `files`: what it leaves (every file). */
async function updated(files: Record<string, string>): Promise<Record<string, string>> {
  const d = writeRepo(files);
  const out: string[] = [];
  const code = await main(['update'], { out: (t) => out.push(t), err: (t) => out.push(t), cwd: d });
  if (code !== 0) throw new Error(`baton update exited ${code}: ${out.join('\n')}`);
  const paths = readdirSync(d, { recursive: true }).map(String).filter((p) => statSync(join(d, p)).isFile());
  return Object.fromEntries(paths.map((p) => [p, readFileSync(join(d, p), 'utf8')]));
}

/** Commits every file that differs on the default branch, as a person pushing what `baton update` wrote. */
async function commitAll(h: Harness, files: Record<string, string>): Promise<void> {
  const alice = h.as('alice');
  for (const [path, text] of Object.entries(files)) {
    const current = await alice.rest.repos.getContent({ ...o, path }).catch(() => undefined);
    const data = current && !Array.isArray(current.data) && current.data.type === 'file' ? current.data : undefined;
    if (data && Buffer.from(data.content, 'base64').toString('utf8') === text) continue;
    await alice.rest.repos.createOrUpdateFileContents({ ...o, path, message: `baton update: ${path}`, content: Buffer.from(text).toString('base64'), ...(data && { sha: data.sha }) });
  }
}

describe('app: upgrading a repository set up by an earlier baton', () => {
  it('refuses its unstamped worker workflow in the thread, and after `baton update` the run and the library workflows go green', async () => {
    const shape = initShapes().filter((s) => s.mode === 'app' && !s.files['.github/workflows/baton-worker.yml']!.includes(FILES_VERSION_VAR)).at(-1)!;
    const run = ownStamp().version;
    h = await startHarness({
      files: { ...shape.files, '.agents/workflows/quick.yml': QUICK },
      agents: {
        implement: [{ write: { 'src/fix.txt': 'fixed\n' } }],
        // The library's triage: nothing to ask, one label the repository has.
        read: [{ output: { summary: 'The widget crashes on empty input.', labels: ['bug'], questions: [] } }],
        classify: [{ output: { labels: ['bug'], kind: 'bug', priority: 'high' } }],
      },
    });
    const n = await openLabelled(h, 'baton:quick');
    const runId = `quick-${n}-1`;
    await h.settle();
    const record = await h.record(n);
    expect(record).toContain(`run \`${runId}\` — failed`);
    expect(record).toContain(
      `refused after 1 attempt: The worker workflow (.github/workflows/baton-worker.yml) was written by a baton that did not stamp its files (0.1.0 or earlier), and this run is baton ${run}, which runs worker workflows written by baton ${MIN_FILES_VERSION} or later: refused.`,
    );
    expect(record).toContain(`npx -y @baton-dev/baton@${run} update`);
    expect(h.agentCalls()).toEqual([]);

    // `baton update` on what init wrote then, committed as it leaves it: no edit by hand.
    await commitAll(h, await updated(shape.files));
    // The library's triage ran on this issue too (it starts on every new one), so its run is the
    // thread's newest: the workflow starts again by its command rather than by a retry.
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton quick' });
    await h.settle();
    const runs = (await h.comments(n)).flatMap((body) => {
      const read = body.includes('baton:record') ? readStateBlock(body, undefined, { unsignedRead: true }) : undefined;
      return read?.ok ? [`${read.state.runId} ${read.state.status}`] : [];
    });
    expect(runs).toContain(`quick-${n}-2 succeeded`);

    // A library workflow of that shape, started by its event: triage of a stranger's issue.
    await h.as('alice').rest.issues.createLabel({ ...o, name: 'bug', color: 'd73a4a' });
    const issue = (await h.as('carol').rest.issues.create({ ...o, title: 'Crash on empty input', body: 'It crashes.' })).data.number;
    await h.settle();
    const states = (await h.comments(issue)).flatMap((body) => {
      const read = body.includes('baton:record') ? readStateBlock(body, undefined, { unsignedRead: true }) : undefined;
      return read?.ok ? [read.state] : [];
    });
    expect(states.map((s) => `${s.runId} ${s.status}`)).toEqual([`triage-${issue}-1 succeeded`]);
    expect((await h.as('alice').rest.issues.listLabelsOnIssue({ ...o, issue_number: issue })).data.map((l) => l.name)).toEqual(['bug']);
  }, 240_000);
});
