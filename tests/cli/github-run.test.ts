// `baton status owner/repo#N` and `baton logs owner/repo#N` against a run the App really ran
// on the emulator (worker jobs in its Actions runner, result artifacts, the status comment):
// what a person sees in their terminal, read through the reader the MCP server uses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import type { CliIO } from '../../src/cli/io.ts';
import { startHarness, type Harness } from '../app/harness.ts';

const HELLO = `name: hello
on: { labels: ["baton:hello"], commands: [hello] }
agents:
  coder: { uses: claude-code }
steps:
  - id: greet
    run: echo "hello from baton" | tee greet.txt; printf 'then \\033]0;owned\\007 and \\033[2J done\\n'
  - id: more
    needs: [greet]
    run: echo "more" > more.txt
  - id: write
    needs: [more]
    agent: coder
    prompt: Write a note.
`;

let h: Harness;
let issue: number;
let env: NodeJS.ProcessEnv;

async function baton(args: string[], environment: NodeJS.ProcessEnv = env): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { out: (t) => out.push(t), err: (t) => err.push(t), cwd: process.cwd() };
  const code = await main(args, io, environment);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

beforeAll(async () => {
  h = await startHarness({ files: { '.agents/workflows/hello.yml': HELLO } });
  const alice = h.as('alice');
  issue = (await alice.rest.issues.create({ owner: 'acme', repo: 'widgets', title: 'Say hello', body: 'Please.' })).data.number;
  await alice.rest.issues.addLabels({ owner: 'acme', repo: 'widgets', issue_number: issue, labels: ['baton:hello'] });
  await h.settle();
  // A person's token, as `gh auth token` would give: read access to the repository and its Actions.
  env = { GITHUB_TOKEN: h.emu.auth.userToken('alice'), GITHUB_API_URL: h.emu.apiUrl };
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('baton status / logs owner/repo#N (emulator)', { timeout: 120_000 }, () => {
  it('shows the run from the App\'s status comment: steps, cost, worker runs, the comment', async () => {
    const r = await baton(['status', `acme/widgets#${issue}`]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const runId = `hello-${issue}-1`;
    expect(r.out).toContain(`run ${runId} (hello) on acme/widgets#${issue} — succeeded`);
    expect(r.out).toMatch(/\n {2}greet +succeeded +\d+s +— *\n/);
    expect(r.out).toMatch(/\n {2}more +succeeded +\d+s +—/);
    // The agent's reported cost (the fake claude reports $0.0123), per step and in total.
    expect(r.out).toMatch(/\n {2}write +succeeded +\d+s +\$0\.01\n/);
    expect(r.out).toContain('cost: $0.01');
    expect(r.out).toMatch(/worker runs .*\n {2}greet #1: http\S+\/actions\/runs\/\d+/);
    expect(r.out).toMatch(/status comment: http\S+#issuecomment-\d+/);

    const json = JSON.parse((await baton(['status', `acme/widgets#${issue}`, '--json'])).out) as { runId: string; status: string; workers: { step: string; workflowRunId: number }[] };
    expect(json).toMatchObject({ runId, status: 'succeeded' });
    expect(json.workers.map((w) => w.step)).toEqual(['greet', 'more', 'write']);
  });

  it('trusts only the bot\'s comment, and says which look-alike it ignored', async () => {
    const bodies = await h.comments(issue);
    const record = bodies.find((b) => b.includes('baton:record'))!;
    // A copy posted by a person, claiming the run failed: shown as ignored, never read.
    const forged = await h.as('mallory').rest.issues.createComment({ owner: 'acme', repo: 'widgets', issue_number: issue, body: record.replace('succeeded', 'failed') });
    const r = await baton(['status', `acme/widgets#${issue}`]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('— succeeded');
    expect(r.err).toContain(`${forged.data.html_url} by @mallory looks like a baton status comment but is not trusted: written by @mallory, not by baton[bot]; ignored`);
    await h.as('mallory').rest.issues.deleteComment({ owner: 'acme', repo: 'widgets', comment_id: forged.data.id });
  });

  it('prints a step\'s transcript from its result artifact, terminal escapes defused', async () => {
    const r = await baton(['logs', `acme/widgets#${issue}`, '--step', 'greet']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(new RegExp(`^=== greet attempt 1 · agent transcript · http\\S+/actions/runs/\\d+ ===`));
    expect(r.out).toContain('hello from baton');
    // The agent's output reaches the terminal without its escape sequences (title, clear screen).
    expect(r.out).toContain('then ^[]0;owned^G and ^[[2J done');
    expect(r.out.includes('\u001b') || r.out.includes('\u0007')).toBe(false);
    expect(r.out).not.toContain('more.txt'); // only the step asked for
    const all = await baton(['logs', `acme/widgets#${issue}`]);
    expect(all.out).toMatch(/=== greet attempt 1 · agent transcript[\s\S]*=== more attempt 1 · agent transcript/);
  });

  it('falls back to the job log when the worker\'s artifact is gone', async () => {
    const json = JSON.parse((await baton(['status', `acme/widgets#${issue}`, '--json'])).out) as { workers: { step: string; workflowRunId: number }[] };
    const greetRun = json.workers.find((w) => w.step === 'greet')!.workflowRunId;
    // What the retention period does to an artifact (GitHub then lists none for the run).
    for (const a of h.runner.store.artifactsOf('acme', 'widgets', greetRun)) h.runner.store.artifacts.delete(a.id);
    const r = await baton(['logs', `acme/widgets#${issue}`, '--step', 'greet']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^=== greet attempt 1 · job log · /);
    expect(r.out).toContain(`(worker run ${greetRun} uploaded no baton-result artifact (or it expired); showing the job log instead)`);
    expect(r.out).toMatch(/=== job \S+ \(success\) ===/);
  });

  it('picks the newest run on the thread, or the one --run names', async () => {
    await h.as('alice').rest.issues.createComment({ owner: 'acme', repo: 'widgets', issue_number: issue, body: '/baton hello' });
    await h.settle();
    const newest = await baton(['status', `acme/widgets#${issue}`]);
    expect(newest.out).toContain(`run hello-${issue}-2 (hello)`);
    const first = await baton(['status', `acme/widgets#${issue}`, '--run', `hello-${issue}-1`]);
    expect(first.out).toContain(`run hello-${issue}-1 (hello)`);
    const logs = await baton(['logs', `acme/widgets#${issue}`, '--run', `hello-${issue}-2`, '--step', 'more']);
    expect(logs.out).toMatch(/^=== more attempt 1 · agent transcript/);
  });

  it('says what to set or fix', async () => {
    const noToken = await baton(['status', `acme/widgets#${issue}`], { GITHUB_API_URL: h.emu.apiUrl });
    expect(noToken.code).toBe(1);
    expect(noToken.err).toContain('set GITHUB_TOKEN (or GH_TOKEN)');
    const noRun = await baton(['status', `acme/widgets#${issue}`, '--run', 'hello-1-9']);
    expect(noRun.code).toBe(1);
    expect(noRun.err).toContain(`no run \`hello-1-9\` on acme/widgets#${issue}; runs there: hello-${issue}-1, hello-${issue}-2`);
    const noStep = await baton(['logs', `acme/widgets#${issue}`, '--step', 'nope']);
    expect(noStep.code).toBe(2);
    expect(noStep.err).toContain('has no step "nope"; its steps: greet, more, write');
    const badTarget = await baton(['logs', 'acme/widgets']);
    expect(badTarget.code).toBe(2);
    expect(badTarget.err).toContain('"acme/widgets" is not OWNER/REPO#N');
    const missing = await baton(['status', 'acme/nope#1']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/GitHub refused to read the comments of #1: 404 .*no such repository/);
    h.emu.assertNoViolations();
  });
});
