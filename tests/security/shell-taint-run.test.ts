// Attack, end to end: an agent's output holds shell code and a later `run:` step uses it.
// Passed through `env:` (the only way the validator lets it reach a command), the text
// arrives in the command's environment as it was written and runs nothing.
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

const WORKFLOW = `name: relay
on: { labels: ["baton:relay"] }
agents: { coder: { uses: claude-code } }
steps:
  - id: plan
    agent: coder
    prompt: plan it
    writes: false
    outputs: { type: object, required: [x], properties: { x: { type: string } } }
  - id: use
    env:
      X: \${{ steps.plan.outputs.x }}
    run: printf '%s' "$X" > got.txt
`;

describe("an agent's output passed to a command through env", () => {
  it('reaches the command as text and runs nothing', async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-taint-'));
    const pwned = join(dir, 'pwned');
    const hostile = `$(touch ${pwned}) \`touch ${pwned}-2\` \${{ issue.title }} ; touch ${pwned}-3`;
    h = await startHarness({ files: { '.agents/workflows/relay.yml': WORKFLOW }, agents: { plan: [{ output: { x: hostile } }] } });
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Relay', body: 'Please.' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:relay'] });
    await h.settle();

    expect(await h.record(issue.number)).toContain(`run \`relay-${issue.number}-1\` — succeeded`);
    const head = await alice.rest.git.getRef({ ...o, ref: `heads/baton/relay-${issue.number}-1` });
    const got = await alice.rest.repos.getContent({ ...o, path: 'got.txt', ref: head.data.object.sha });
    expect(Buffer.from((got.data as { content: string }).content, 'base64').toString()).toBe(hostile);
    for (const f of [pwned, `${pwned}-2`, `${pwned}-3`]) expect(existsSync(f)).toBe(false);
    h.emu.assertNoViolations();
    expect(h.runner.errors).toEqual([]);
  }, 60_000);
});
