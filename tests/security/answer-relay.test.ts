// Attack: a maintainer answers baton's question by pasting a reporter's error output, which
// holds `$(id > pwned.txt)`; a `run:` step that put the answer into its command ran it as the
// worker's user. Defence: an answer is untrusted text (`src/manifest/taint.ts`): a manifest
// that puts it into `run:` is refused at validation, at its line, saying to use `env:`; through
// `env:` the text reaches the command as data and runs nothing.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../app/harness.ts';

const o = { owner: 'acme', repo: 'widgets' };
let h: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const manifest = (use: string): string => `name: relay
on: { labels: ["baton:relay"] }
steps:
  - id: clarify
    ask: { questions: ["What does the error say?"] }
  - id: log
    needs: [clarify]
${use}`;

const IN_RUN = manifest(`    run: printf '%s' "\${{ steps.clarify.outputs.answers[0] }}" > answer.txt\n`);
const IN_ENV = manifest(`    env: { ANSWER: "\${{ steps.clarify.outputs.answers[0] }}" }\n    run: printf '%s' "$ANSWER" > answer.txt\n`);

/** The reporter's error output as a maintainer pastes it: shell code for the worker, a file in the checkout and one outside. */
function pastedError(outside: string): string {
  return `sh: 1: $(id > pwned.txt): not found $(id > ${outside}) \`id > ${outside}-2\``;
}

/** alice (a maintainer) labels an issue, then answers whatever is asked with the pasted error. */
async function relay(harness: Harness, answer: string): Promise<number> {
  const alice = harness.as('alice');
  const issue = (await alice.rest.issues.create({ ...o, title: 'Crash on start', body: 'Reporter: it crashes.' })).data;
  await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:relay'] });
  await harness.settle();
  await alice.rest.issues.createComment({ ...o, issue_number: issue.number, body: `/baton answer\n${answer}` });
  await harness.settle();
  return issue.number;
}

async function comments(harness: Harness, number: number): Promise<string[]> {
  const all = await harness.as('alice').paginate(harness.as('alice').rest.issues.listComments, { ...o, issue_number: number, per_page: 100 });
  return all.map((c) => c.body ?? '');
}

describe("a maintainer's answer that quotes a stranger's shell", () => {
  it('in `run:` is refused at validation with the line and the env: fix; nothing runs', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-answer-'));
    const outside = join(dir, 'pwned');
    h = await startHarness({ files: { '.agents/workflows/relay.yml': IN_RUN } });
    const number = await relay(h, pastedError(outside));

    for (const f of [outside, `${outside}-2`]) expect(existsSync(f), f).toBe(false);
    expect(h.runner.store.runs.size).toBe(0);
    const said = (await comments(h, number)).join('\n');
    expect(said).toContain('baton cannot start a run: `.agents/workflows/relay.yml`');
    expect(said).toContain(
      ".agents/workflows/relay.yml:8:23: step `log` puts `steps.clarify.outputs.answers[0]` into a shell command; an answer may quote anyone (a reporter's error output pasted into it), so anyone writes that text",
    );
    expect(said).toContain('Pass it through `env:` instead');
    h.emu.assertNoViolations();
  }, 60_000);

  it('through `env:` reaches the command as text and runs nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-answer-'));
    const outside = join(dir, 'pwned');
    h = await startHarness({ files: { '.agents/workflows/relay.yml': IN_ENV } });
    const answer = pastedError(outside);
    const number = await relay(h, answer);

    expect(await h.record(number)).toContain(`run \`relay-${number}-1\` — succeeded`);
    const alice = h.as('alice');
    const head = (await alice.rest.git.getRef({ ...o, ref: `heads/baton/relay-${number}-1` })).data.object.sha;
    const got = await alice.rest.repos.getContent({ ...o, path: 'answer.txt', ref: head });
    expect(Buffer.from((got.data as { content: string }).content, 'base64').toString()).toBe(answer);
    await expect(alice.rest.repos.getContent({ ...o, path: 'pwned.txt', ref: head })).rejects.toMatchObject({ status: 404 });
    for (const f of [outside, `${outside}-2`]) expect(existsSync(f)).toBe(false);
    h.emu.assertNoViolations();
    expect(h.runner.errors).toEqual([]);
  }, 60_000);
});
