// `baton update`: what `baton init` wrote, moved to what this version writes, the user's
// edits kept by a three-way merge from what init wrote; what cannot be merged is named.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { main } from '../../src/cli/main.ts';
import { INIT_BASE_FILE } from '../../src/init/base.ts';
import { ACTION_REF } from '../../src/names.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function repo(): string {
  const d = mkdtempSync(join(tmpdir(), 'baton-update-test-'));
  dirs.push(d);
  return d;
}

async function baton(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t), cwd });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const WORKER = '.github/workflows/baton-worker.yml';
const read = (d: string, p: string) => readFileSync(join(d, p), 'utf8');
const edit = (d: string, p: string, f: (t: string) => string) => writeFileSync(join(d, p), f(read(d, p)));

describe('baton update', () => {
  it('moves the pinned Action version and keeps the user\'s edits elsewhere in the file', async () => {
    const d = repo();
    expect((await baton(d, ['init', '--mode', 'actions', '--action-ref', 'acme/baton@v1'])).code).toBe(0);
    expect(read(d, INIT_BASE_FILE)).toContain('"actionRef": "acme/baton@v1"');
    // The user's own touches: a comment at the top of the worker, a line in the manifest.
    edit(d, WORKER, (t) => `# our runners are slow\n${t}`);
    edit(d, '.agents/workflows/fix-issue.yml', (t) => `${t}# reviewed by the platform team\n`);

    const r = await baton(d, ['update', '--action-ref', 'acme/baton@v2']);
    // The one thing said on stderr: a tag given for the Action is not a pin.
    expect(r.err).toMatch(/^warning: --action-ref acme\/baton@v2 is not a full commit SHA[^\n]*$/);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`${WORKER}: updated, your edits kept\n      acme/baton: v1 → v2`);
    expect(r.out).toContain('.agents/workflows/fix-issue.yml: updated, your edits kept');
    const worker = read(d, WORKER);
    expect(worker.startsWith('# our runners are slow\n')).toBe(true);
    expect(worker).toContain('acme/baton@v2');
    expect(worker).not.toContain('acme/baton@v1');
    expect(read(d, '.agents/workflows/fix-issue.yml')).toContain('# reviewed by the platform team');

    // Run again: nothing left to do; the reference the user gave stays.
    const again = await baton(d, ['update']);
    expect(again.code).toBe(0);
    expect(again.out).toContain('(actions mode, acme/baton@v2)');
    expect(again.out).toContain(`${WORKER}: up to date (your edits kept)`);
    expect(read(d, WORKER).startsWith('# our runners are slow\n')).toBe(true);
  });

  it('names a file where both sides changed the same lines, keeps both, exits 1', async () => {
    const d = repo();
    await baton(d, ['init', '--mode', 'app', '--action-ref', 'acme/baton@v1']);
    edit(d, WORKER, (t) => t.replaceAll('acme/baton@v1', 'acme/baton@my-fork'));
    const r = await baton(d, ['update', '--action-ref', 'acme/baton@v2']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(new RegExp(`${WORKER}: \\d+ conflicts? \\(your edits and baton's changes touch the same lines`));
    expect(r.err).toContain(`could not merge ${WORKER}: settle the conflict markers, then commit`);
    const worker = read(d, WORKER);
    expect(worker).toContain('<<<<<<< yours');
    expect(worker).toContain('acme/baton@my-fork');
    expect(worker).toContain('acme/baton@v2');
    expect(worker).toMatch(/>>>>>>> baton \S+/);
  });

  it('follows baton\'s own Action version when init used the default', async () => {
    const d = repo();
    await baton(d, ['init', '--mode', 'app']);
    const stale = ACTION_REF.replace(/@.*$/, '@v0');
    // As if an older baton had written the files: its reference in them and in the base.
    for (const p of [WORKER, INIT_BASE_FILE]) edit(d, p, (t) => t.replaceAll(ACTION_REF, stale));
    const r = await baton(d, ['update']);
    expect(r.code).toBe(0);
    expect(read(d, WORKER)).toContain(ACTION_REF);
    expect(read(d, WORKER)).not.toContain(stale);
  });

  it('says what to do without the record of what init wrote, and leaves a deleted file out', async () => {
    const d = repo();
    const none = await baton(d, ['update']);
    expect(none.code).toBe(1);
    expect(none.err).toContain(`${INIT_BASE_FILE} is missing`);
    await baton(d, ['init', '--mode', 'app']);
    unlinkSync(join(d, '.agents/workflows/fix-issue.yml'));
    const r = await baton(d, ['update']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('.agents/workflows/fix-issue.yml: you deleted it; left out');
    writeFileSync(join(d, INIT_BASE_FILE), '{"version": 2}');
    expect((await baton(d, ['update'])).err).toContain('is not one baton wrote');
  });
});

describe("baton.yml's on: follows the manifests (Actions-only mode)", () => {
  const BATON = '.github/workflows/baton.yml';
  const REVIEW = `name: review-pr
on:
  pull_request: { types: [opened], branches: [main], paths: ['src/**'] }
  schedule: [{ cron: '0 6 * * 1' }]
agents:
  reviewer: { uses: claude-code }
steps:
  - id: review
    agent: reviewer
    writes: false
    prompt: Review the pull request.
`;

  it('init subscribes to the triggers of the manifests already in the repository, without their GitHub filters', async () => {
    const d = repo();
    mkdirSync(join(d, '.agents/workflows'), { recursive: true });
    writeFileSync(join(d, '.agents/workflows/review-pr.yml'), REVIEW);
    expect((await baton(d, ['init', '--mode', 'actions', '--action-ref', 'acme/baton@v1'])).code).toBe(0);
    const on = (parse(read(d, BATON)) as { on: Record<string, unknown> }).on;
    expect(on.pull_request).toEqual({ types: ['labeled', 'closed', 'opened'] });
    expect(on.schedule).toEqual([{ cron: '*/5 * * * *' }, { cron: '0 6 * * 1' }]);
    expect(read(d, BATON)).not.toContain('src/**');
  });

  it('a trigger added after init: validate warns, update rewrites the on: block and keeps edits elsewhere, a second update changes nothing', async () => {
    const d = repo();
    expect((await baton(d, ['init', '--mode', 'actions', '--action-ref', 'acme/baton@v1'])).code).toBe(0);
    // The user's own touches of baton.yml: an event baton does not own, a comment at the end, a stale cron.
    edit(d, BATON, (t) => `${t.replace('  status:\n', '  status:\n  workflow_dispatch:\n').replace("[{ cron: '*/5 * * * *' }]", "[{ cron: '*/5 * * * *' }, { cron: '0 7 * * *' }]")}# ours\n`);
    writeFileSync(join(d, '.agents/workflows/review-pr.yml'), REVIEW);

    const warned = await baton(d, ['validate']);
    expect(warned.out).toContain('.agents/workflows/review-pr.yml:3:3: warning: .agents/workflows/review-pr.yml starts on pull_request opened, but .github/workflows/baton.yml does not subscribe to it');
    expect(warned.out).toContain("warning: .agents/workflows/review-pr.yml starts on schedule '0 6 * * 1'");
    expect(warned.out).toMatch(/\.github\/workflows\/baton\.yml:\d+:\d+: warning: schedule '0 7 \* \* \*' is neither baton's sweep nor any manifest's on\.schedule/);
    expect((await baton(d, ['doctor'])).out).toContain('warning: .agents/workflows/review-pr.yml starts on pull_request opened');

    const r = await baton(d, ['update']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`${BATON}: \`on:\` rewritten from .agents/workflows, your edits elsewhere kept\n      on: + pull_request opened\n      on: + schedule '0 6 * * 1'\n      on: - schedule '0 7 * * *'`);
    const text = read(d, BATON);
    const on = (parse(text) as { on: Record<string, unknown> }).on;
    expect(on.pull_request).toEqual({ types: ['labeled', 'closed', 'opened'] });
    expect(on.schedule).toEqual([{ cron: '*/5 * * * *' }, { cron: '0 6 * * 1' }]);
    expect(on).toHaveProperty('workflow_dispatch');
    expect(text.endsWith('# ours\n')).toBe(true);
    expect((await baton(d, ['validate'])).out).not.toContain('warning');

    const again = await baton(d, ['update']);
    expect(again.out).toContain(`${BATON}: up to date (your edits kept)`);
    expect(read(d, BATON)).toBe(text);
  });
});
