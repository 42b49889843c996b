// Actions-only mode, a repository set up by an earlier baton whose baton.yml runs this one (its
// `uses: baton-dev/baton@v1` moved): the files `baton init` wrote before they carried their
// version (the newest such shape of this repository's history, tests/fixtures/init-shapes/)
// are refused in the thread, naming the versions and `baton update`, and the run ends; the
// files `baton update` leaves, committed, run the workflow green.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { FILES_VERSION_VAR, ownStamp } from '../../src/compat.ts';
import { readStateBlock } from '../../src/record/state-block.ts';
import { initShapes, removeRepos, writeRepo } from '../init/init-shapes.ts';
import { startActionsOnly, type ActionsOnly } from './harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
const BOT = 'github-actions[bot]';
const QUICK = `name: quick
on: { labels: ["baton:quick"], commands: [quick] }
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
afterEach(async () => {
  await h?.close();
  h = undefined;
  removeRepos();
});

async function updated(files: Record<string, string>): Promise<Record<string, string>> {
  const d = writeRepo(files);
  const out: string[] = [];
  const code = await main(['update'], { out: (t) => out.push(t), err: (t) => out.push(t), cwd: d });
  if (code !== 0) throw new Error(`baton update exited ${code}: ${out.join('\n')}`);
  const paths = readdirSync(d, { recursive: true }).map(String).filter((p) => statSync(join(d, p)).isFile());
  return Object.fromEntries(paths.map((p) => [p, readFileSync(join(d, p), 'utf8')]));
}

/** The runs recorded on a thread, as `runId status`. */
async function runsOn(h: ActionsOnly, n: number): Promise<string[]> {
  const comments = await h.as('alice').paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: n, per_page: 100 });
  return comments.flatMap((c) => {
    const read = c.user?.login === BOT && c.body?.includes('baton:record') ? readStateBlock(c.body, undefined, { unsignedRead: true }) : undefined;
    return read?.ok ? [`${read.state.runId} ${read.state.status}`] : [];
  });
}

describe('Actions-only: upgrading a repository set up by an earlier baton', () => {
  it('refuses its unstamped worker workflow in the thread; after `baton update` the workflow runs green', async () => {
    const shape = initShapes().filter((s) => s.mode === 'actions' && !s.files['.github/workflows/baton-worker.yml']!.includes(FILES_VERSION_VAR)).at(-1)!;
    const run = ownStamp().version;
    h = await startActionsOnly({
      init: ['--mode', 'actions', '--workflows', 'fix-issue'],
      files: { ...shape.files, '.agents/workflows/quick.yml': QUICK },
      agentScript: [{ write: { 'src/fix.txt': 'fixed\n' } }],
    });
    h.emu.store.allowActionsToCreatePullRequests('acme', 'widgets');
    const alice = h.as('alice');
    const n = (await alice.rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.', labels: ['baton:quick'] })).data.number;
    await h.settle();
    const comments = (await alice.rest.issues.listComments({ ...o, issue_number: n })).data.map((c) => c.body ?? '');
    const record = comments.find((b) => b.includes('baton:record') && b.includes(`quick-${n}-1`)) ?? '';
    expect(record).toContain(`run \`quick-${n}-1\` — failed`);
    expect(record).toContain(`was written by a baton that did not stamp its files (0.1.0 or earlier), and this run is baton ${run}`);
    expect(record).toContain(`npx -y @baton-dev/baton@${run} update`);
    expect(h.agentCalls()).toBe(0);

    // `baton update` on what init wrote then; what it leaves is committed as is.
    for (const [path, text] of Object.entries(await updated(shape.files))) {
      const current = await alice.rest.repos.getContent({ ...o, path }).catch(() => undefined);
      const data = current && !Array.isArray(current.data) && current.data.type === 'file' ? current.data : undefined;
      if (data && Buffer.from(data.content, 'base64').toString('utf8') === text) continue;
      await alice.rest.repos.createOrUpdateFileContents({ ...o, path, message: `baton update: ${path}`, content: Buffer.from(text).toString('base64'), ...(data && { sha: data.sha }) });
    }
    await h.settle();
    // The library's triage ran on that issue too (it starts on every new one) and is its newest
    // run: the workflow starts again by its command rather than by a retry.
    await alice.rest.issues.createComment({ ...o, issue_number: n, body: '/baton quick' });
    await h.settle();
    expect(await runsOn(h, n)).toContain(`quick-${n}-2 succeeded`);
  }, 300_000);
});
