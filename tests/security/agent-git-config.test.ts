// Attack: the agent plants a command in git's configuration — `core.fsmonitor`,
// `core.hooksPath`, hooks, a clean filter or textconv driver named in `.gitattributes`, an
// `include.path`/`includeIf` — in `.git/config` or `~/.gitconfig`, or puts its own `git`
// on PATH, hoping that baton's change collection (`git add` after the agent) runs it with
// the worker's environment. Each test plants through the fake agent CLI, checks the plant
// is live (a plain `git add` in the checkout afterwards runs it), and asserts that nothing
// ran during the worker and that the agent's real changes are still reported.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runWorker } from '../../src/agents/worker.ts';
import { fakes, makeRepo, makeTask } from '../agents/helpers.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** A folder for marker files, and a command that creates `<name>` in it. */
function markers(): { dir: string; cmd: (name: string) => string; fired: () => string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'baton-markers-'));
  cleanup.push(dir);
  return { dir, cmd: (name) => `touch ${join(dir, name)}`, fired: () => readdirSync(dir).sort() };
}

/** Config text with every executing setting, each writing its own marker. */
function hostileConfig(m: ReturnType<typeof markers>, tag: string, hooksDir: string): string {
  return [
    '[core]',
    `\tfsmonitor = "${m.cmd(`${tag}-fsmonitor`)}; echo 0; exit 1"`,
    `\thooksPath = ${hooksDir}`,
    '[filter "evil"]',
    `\tclean = "${m.cmd(`${tag}-clean`)}; cat"`,
    `\tprocess = "${m.cmd(`${tag}-process`)}"`,
    '[diff "evil"]',
    `\ttextconv = "${m.cmd(`${tag}-textconv`)}; cat"`,
    `\tcommand = "${m.cmd(`${tag}-extdiff`)}"`,
    '',
  ].join('\n');
}

/** Hooks a `git add` or commit could run, as executable files. */
function hooks(m: ReturnType<typeof markers>, tag: string, dir: string): { write: Record<string, string>; chmod: Record<string, string> } {
  const write: Record<string, string> = {};
  const chmod: Record<string, string> = {};
  for (const h of ['post-index-change', 'pre-commit', 'post-checkout', 'reference-transaction']) {
    write[join(dir, h)] = `#!/bin/sh\n${m.cmd(`${tag}-hook-${h}`)}\n`;
    chmod[join(dir, h)] = '755';
  }
  return { write, chmod };
}

/** The agent's real work, next to the plant: reported as ever. */
const REAL_WORK = { 'src/a.ts': 'export const a = 2;\n', '.gitattributes': '* filter=evil diff=evil\n' };

async function attack(plant: (m: ReturnType<typeof markers>, dir: string, home: string) => { write: Record<string, string>; chmod?: Record<string, string> }) {
  const { dir, base } = makeRepo();
  cleanup.push(dir);
  const f = fakes();
  cleanup.push(f.dir);
  const home = f.env.HOME!;
  // The worker's own HOME is the agent's, as on a runner.
  vi.stubEnv('HOME', home);
  const m = markers();
  const planted = plant(m, dir, home);
  f.script([{ write: { ...REAL_WORK, ...planted.write }, chmod: planted.chmod ?? {}, reply: { summary: 'done' } }]);
  const run = await runWorker(makeTask({ base }), { cwd: dir, env: f.env });
  return { run, m, dir, home };
}

/** A plain `git add` in the checkout, as a naive collector would run it: proves the plant is live. */
function naiveAdd(dir: string, home: string, env: NodeJS.ProcessEnv = {}): void {
  // As on a runner, where git reads ~/.gitconfig: the suite's own setup points it at /dev/null
  // (tests/setup/git-config.ts), which would hide the plant from this control.
  const machine: NodeJS.ProcessEnv = { ...process.env, HOME: home, ...env };
  delete machine.GIT_CONFIG_GLOBAL;
  try {
    execFileSync('git', ['add', '--all'], { cwd: dir, env: machine, stdio: 'ignore' });
  } catch {
    // a hostile config may make git fail; what it ran is what counts
  }
}

function expectRealWork(run: Awaited<ReturnType<typeof runWorker>>): void {
  expect(run.result.status).toBe('succeeded');
  expect(run.result.changes).toEqual([
    { path: '.gitattributes', status: 'added', mode: '100644' },
    { path: 'src/a.ts', status: 'modified', mode: '100644' },
  ]);
  // Stored as written: no clean filter rewrote it on the way in.
  expect(Buffer.from(run.files.get('src/a.ts')!).toString()).toBe('export const a = 2;\n');
}

describe('an agent that plants commands in git configuration', () => {
  it('.git/config: fsmonitor, hooksPath, hooks, clean/process filters, textconv and diff command never run', async () => {
    const { run, m, dir, home } = await attack((m, dir) => {
      const hooksDir = join(dir, '.git', 'evil-hooks');
      const h1 = hooks(m, 'hookspath', hooksDir);
      const h2 = hooks(m, 'githooks', join(dir, '.git', 'hooks'));
      const config = `[user]\n\tname = test\n\temail = test@localhost\n${hostileConfig(m, 'local', hooksDir)}`;
      return { write: { '.git/config': config, ...h1.write, ...h2.write }, chmod: { ...h1.chmod, ...h2.chmod } };
    });
    expect(m.fired()).toEqual([]);
    expectRealWork(run);
    naiveAdd(dir, home);
    expect(m.fired()).toEqual(expect.arrayContaining(['local-fsmonitor', 'local-process']));
  });

  it('~/.gitconfig and an include.path / includeIf file: nothing in them runs', async () => {
    const { run, m, dir, home } = await attack((m, _dir, home) => {
      const hooksDir = join(home, 'hooks');
      const h = hooks(m, 'global', hooksDir);
      const included = join(home, 'included.gitconfig');
      const global = `[include]\n\tpath = ${included}\n[includeIf "gitdir:/"]\n\tpath = ${included}\n${hostileConfig(m, 'global', hooksDir)}`;
      const inc = hostileConfig(m, 'include', hooksDir);
      return { write: { [join(home, '.gitconfig')]: global, [included]: inc, [join(home, '.config/git/config')]: hostileConfig(m, 'xdg', hooksDir), ...h.write }, chmod: h.chmod };
    });
    expect(m.fired()).toEqual([]);
    expectRealWork(run);
    naiveAdd(dir, home);
    expect(m.fired()).toEqual(expect.arrayContaining(['global-fsmonitor', 'global-process']));
  });

  it('an include.path planted in .git/config pointing at a file of the agent: nothing in it runs', async () => {
    const { run, m, dir, home } = await attack((m, dir, home) => {
      const included = join(home, 'from-local.gitconfig');
      return { write: { '.git/config': `[include]\n\tpath = ${included}\n`, [included]: hostileConfig(m, 'localinclude', join(home, 'nohooks')) } };
    });
    expect(m.fired()).toEqual([]);
    expectRealWork(run);
    naiveAdd(dir, home);
    expect(m.fired()).toEqual(expect.arrayContaining(['localinclude-fsmonitor', 'localinclude-process']));
  });

  it('a `git` of the agent\'s on PATH is not the git baton runs', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'baton-path-'));
    cleanup.push(bin);
    // A folder on the worker's PATH the agent can write to (~/.local/bin on hosted runners).
    vi.stubEnv('PATH', `${bin}${delimiter}${process.env.PATH}`);
    const { run, m, dir, home } = await attack((m) => ({
      write: { [join(bin, 'git')]: `#!/bin/sh\n${m.cmd('path-git')}\nexit 1\n` },
      chmod: { [join(bin, 'git')]: '755' },
    }));
    expect(existsSync(join(bin, 'git'))).toBe(true);
    expect(m.fired()).toEqual([]);
    expectRealWork(run);
    naiveAdd(dir, home, { PATH: `${bin}${delimiter}${process.env.PATH}` });
    expect(m.fired()).toEqual(['path-git']);
  });

  it('a base given by name still resolves, and a config the agent rewrote is not read', async () => {
    const { dir, base } = makeRepo();
    cleanup.push(dir);
    const f = fakes();
    cleanup.push(f.dir);
    const m = markers();
    f.script([{ write: { 'src/a.ts': 'export const a = 3;\n', '.git/config': hostileConfig(m, 'late', join(dir, 'x')) }, reply: { summary: 'done' } }]);
    const run = await runWorker(makeTask({ base: 'HEAD' }), { cwd: dir, env: f.env });
    expect(run.result.base).toBe('HEAD');
    expect(run.result.changes).toEqual([{ path: 'src/a.ts', status: 'modified', mode: '100644' }]);
    expect(m.fired()).toEqual([]);
    expect(base).toMatch(/^[0-9a-f]{40}$/);
  });
});
