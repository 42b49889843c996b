// Every `uses:` that `baton init` writes runs at a commit nobody can move: GitHub's actions from
// the pin table (src/init/action-pins.ts), baton's Action from the release's stamp. `baton
// update` moves older pins to this version's and says so; doctor warns about tags.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { GITHUB_ACTION_PINS, pinnedUses } from '../../src/init/action-pins.ts';
import { INIT_BASE_FILE } from '../../src/init/base.ts';
import { libraryWorkflows, type LibraryWorkflow } from '../../src/init/library.ts';
import { planInit } from '../../src/init/plan.ts';
import { pinWarnings } from '../../src/manifest/warn-pins.ts';
import { ACTION_REF } from '../../src/names.ts';
import { batonAction } from '../../src/release-pin.ts';
import { parseWorkflowFile } from '../emulator/actions/workflow-file.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function repo(): string {
  const d = mkdtempSync(join(tmpdir(), 'baton-pins-test-'));
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

/** Each `uses:` line of a workflow text, raw. */
const usesLines = (text: string) => text.split('\n').filter((l) => /^\s*(-\s+)?uses:/.test(l)).map((l) => l.replace(/^\s*(-\s+)?uses:\s*/, ''));
const PINNED = /^[^@\s]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/;
/** What an installed baton carries: a release stamp (tests/release/stamp-pin.test.ts makes a real one). */
const RELEASED = batonAction({ repo: 'baton-dev/baton', version: 'v1.4.2', commit: '0123456789abcdef0123456789abcdef01234567' });

/** Every non-empty subset of `items`. */
function combinations<T>(items: T[]): T[][] {
  return items.reduce<T[][]>((all, item) => [...all, ...all.map((c) => [...c, item])], [[]]).filter((c) => c.length);
}

/**
 * What `--workflows` can choose, as far as `uses:` lines go: the generated files' actions
 * depend on the set of agent backends the chosen workflows need (and on the mode), so one
 * library workflow per distinct set, in every combination, covers every `--workflows` choice
 * (all 2^n subsets of the whole library would be a thousand plans, each deriving baton.yml's
 * triggers from its manifests).
 */
function backendChoices(library: LibraryWorkflow[]): LibraryWorkflow[][] {
  const one = new Map<string, LibraryWorkflow>();
  for (const w of library) {
    const key = [...w.backends].sort().join(',');
    if (!one.has(key)) one.set(key, w);
  }
  return combinations([...one.values()]);
}

describe('pins in what baton init writes', () => {
  it('every uses: is a full commit SHA with its version comment, in both modes and every --workflows choice of backends', () => {
    const library = libraryWorkflows();
    const seen = new Set<string>();
    for (const workflows of [...backendChoices(library), library]) {
      for (const [mode, appToken] of [['app', false], ['actions', false], ['actions', true]] as const) {
        const plan = planInit({ mode, workflows, actionRef: RELEASED.ref, actionVersion: RELEASED.version!, appToken });
        // (.agents/workflows/ have `uses:` too: the agent backend, not an action.)
        for (const f of plan.files.filter((f) => f.path.startsWith('.github/workflows/'))) {
          for (const uses of usesLines(f.text)) {
            expect(uses, `${f.path} (${mode}${appToken ? ', --app-token' : ''}; ${workflows.map((w) => w.name).join(',')})`).toMatch(PINNED);
            seen.add(uses);
          }
        }
      }
    }
    // GitHub's actions at exactly the table's pins, baton's at the release's: nothing else.
    expect([...seen].sort()).toEqual([...Object.values(GITHUB_ACTION_PINS).map(pinnedUses), `${RELEASED.ref} # v1.4.2`].sort());
  });

  it('the runner reads the pinned uses: without the comment (what GitHub resolves)', () => {
    const plan = planInit({ mode: 'actions', workflows: libraryWorkflows().filter((w) => w.name === 'fix-issue'), actionRef: RELEASED.ref, actionVersion: RELEASED.version!, appToken: true });
    const worker = parseWorkflowFile(WORKER, plan.files.find((f) => f.path === WORKER)!.text);
    const uses = worker.jobs.flatMap((j) => j.steps.map((s) => s.uses)).filter(Boolean);
    expect(uses).toContain(`${GITHUB_ACTION_PINS.checkout.repo}@${GITHUB_ACTION_PINS.checkout.commit}`);
    for (const u of uses) expect(u).toMatch(/^[^@\s]+@[0-9a-f]{40}$/);
  });

  it('in a checkout without a release pin: GitHub\'s actions pinned, baton\'s Action on the major tag, said loudly', async () => {
    const d = repo();
    const r = await baton(d, ['init', '--mode', 'actions']);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`warning: this copy of baton carries no release pin`);
    expect(r.err).toContain(`the moving tag ${ACTION_REF}`);
    const all = [WORKER, '.github/workflows/baton.yml'].flatMap((p) => usesLines(read(d, p)));
    expect(all.filter((u) => !PINNED.test(u)).every((u) => u === ACTION_REF)).toBe(true);
    // doctor names each of those lines, with its file and line.
    const doctor = await baton(d, ['doctor']);
    const warned = doctor.out.split('\n').filter((l) => l.includes('is not pinned to a full commit SHA'));
    const expected = [WORKER, '.github/workflows/baton.yml'].flatMap((p) =>
      read(d, p).split('\n').flatMap((l, i) => (l.includes(`uses: ${ACTION_REF}`) ? [`warning: ${p}:${i + 1}: \`uses: ${ACTION_REF}\``] : [])),
    );
    expect(expected.length).toBe(5); // route, locate and apply in the worker; route and run in baton.yml
    expect(warned.map((l) => l.replace(/ is not pinned.*$/, '')).sort()).toEqual(expected.sort());
  });

  it('the demo repository\'s worker workflow uses the table\'s pins, as init writes them', () => {
    const demo = readFileSync(join(ROOT, 'scripts/demo/repo/.github/workflows/baton-worker.yml'), 'utf8');
    const github = usesLines(demo).filter((u) => u.startsWith('actions/'));
    expect(github.length).toBeGreaterThan(0);
    for (const u of github) expect(Object.values(GITHUB_ACTION_PINS).map(pinnedUses)).toContain(u);
    expect(pinWarnings({ [WORKER]: demo }).map((w) => w.uses)).toEqual([ACTION_REF]);
  });
});

describe('baton update and pins', () => {
  const tagged = {
    checkout: 'actions/checkout@v5',
    uploadArtifact: 'actions/upload-artifact@v4',
    downloadArtifact: 'actions/download-artifact@v4',
    appToken: 'actions/create-github-app-token@v2',
  } as const;
  /** As an older baton wrote it: GitHub's actions by tag, in the files and in the record of what init wrote. */
  function older(d: string): void {
    for (const p of [WORKER, '.github/workflows/baton.yml', INIT_BASE_FILE]) {
      edit(d, p, (t) => {
        for (const [key, pin] of Object.entries(GITHUB_ACTION_PINS)) t = t.replaceAll(pinnedUses(pin), tagged[key as keyof typeof tagged]);
        return t;
      });
    }
  }

  it('moves tag pins an older baton wrote to this version\'s SHA pins, keeps the user\'s edits, and prints old → new', async () => {
    const d = repo();
    expect((await baton(d, ['init', '--mode', 'actions', '--app-token'])).code).toBe(0);
    older(d);
    expect(read(d, WORKER)).toContain('uses: actions/checkout@v5\n');
    edit(d, WORKER, (t) => t.replace('timeout-minutes: 60', 'timeout-minutes: 90   # our agents are slow'));

    const r = await baton(d, ['update']);
    expect(r.code).toBe(0);
    const worker = read(d, WORKER);
    expect(worker).toContain('timeout-minutes: 90   # our agents are slow');
    for (const p of [WORKER, '.github/workflows/baton.yml']) {
      for (const u of usesLines(read(d, p))) expect(u === ACTION_REF || PINNED.test(u), `${p}: ${u}`).toBe(true);
    }
    expect(r.out).toContain(`${WORKER}: updated, your edits kept`);
    for (const [key, pin] of Object.entries(GITHUB_ACTION_PINS)) {
      const was = tagged[key as keyof typeof tagged].replace(/^.*@/, '');
      expect(r.out).toContain(`      ${pin.repo}: ${was} → ${pin.commit} # ${pin.version}`);
    }
    expect(r.out).toContain(`.github/workflows/baton.yml: updated\n      actions/create-github-app-token: v2 → ${GITHUB_ACTION_PINS.appToken.commit} # ${GITHUB_ACTION_PINS.appToken.version}`);
  });

  it('a pin moved since (Dependabot): an older release follows baton\'s, a newer one is kept; no conflict', async () => {
    const d = repo();
    await baton(d, ['init', '--mode', 'actions']);
    older(d);
    const bumped = (repo: string, sha: string, version: string) => `${repo}@${sha.repeat(40 / sha.length)} # ${version}`;
    // Dependabot bumped checkout to a release older than baton's, and download-artifact past it.
    edit(d, WORKER, (t) => t.replace(tagged.checkout, bumped('actions/checkout', 'a', 'v6.0.0')).replace(tagged.downloadArtifact, bumped('actions/download-artifact', 'b', 'v99.1.0')));

    const r = await baton(d, ['update']);
    expect(r.code, r.out + r.err).toBe(0);
    const worker = read(d, WORKER);
    expect(worker).not.toContain('<<<<<<<');
    expect(worker).toContain(`uses: ${pinnedUses(GITHUB_ACTION_PINS.checkout)}\n`);
    expect(worker).toContain(`uses: ${bumped('actions/download-artifact', 'b', 'v99.1.0')}\n`);
    expect(r.out).toContain(`actions/checkout: ${'a'.repeat(40)} # v6.0.0 → ${pinnedUses(GITHUB_ACTION_PINS.checkout).replace(/^.*@/, '')}`);
    expect(r.out).toContain(`actions/download-artifact: ${'b'.repeat(40)} # v99.1.0 kept (newer than this baton's ${GITHUB_ACTION_PINS.downloadArtifact.commit} # ${GITHUB_ACTION_PINS.downloadArtifact.version})`);

    // Run again: the newer pin stays, nothing else moves.
    const again = await baton(d, ['update']);
    expect(again.code).toBe(0);
    expect(read(d, WORKER)).toBe(worker);
  });
});
