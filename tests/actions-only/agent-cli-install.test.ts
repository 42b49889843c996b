// The worker's install step on the emulator's runner, for real: `baton init`'s worker
// workflow, the Action's mode install-clis from the bundle (dist/action.js), npm ci from a
// lockfile of the Action against a loopback registry. The CLI is a fake claude-code whose
// package scripts would leave marker files: they must not run, the reviewed postinstall
// (baton's own code) must put its platform binary in place, and the agent must then run
// from the job-local prefix. A lockfile entry whose integrity hash does not match what the
// registry serves fails the job at the install step, before any agent runs.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { currentPlatform, REVIEWED_POSTINSTALLS } from '../../src/agents/install/native-binary.ts';
import { PROJECT_ROOT, startActionsOnly, type ActionsOnly } from './harness.ts';
import { startLocalRegistry, type LocalRegistry } from './local-npm-registry.ts';

const QUICK = `name: quick
on: { labels: ["baton:quick"] }
agents:
  coder: { uses: claude-code }
steps:
  - id: implement
    agent: coder
    prompt: "Fix issue #\${{ issue.number }}: \${{ issue.title }}"
`;
const INSTALL_STEP = "Install agent CLIs from baton's lockfiles, package scripts off";
const o = { owner: 'acme', repo: 'widgets' };

let h: ActionsOnly | undefined;
let registry: LocalRegistry | undefined;
const scratch: string[] = [];
afterEach(async () => {
  await h?.close();
  await registry?.close();
  h = registry = undefined;
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(d);
  return d;
}

/** The platform package claude-code's reviewed postinstall looks for here (linux-x64, …). */
const PLATFORM_PKG = REVIEWED_POSTINSTALLS['claude-code']!.candidates(currentPlatform())[0]!.split('/').slice(0, 2).join('/');

/** A fake @anthropic-ai/claude-code@2.1.332 shaped like the real one; its scripts would write into `markers`. */
async function fakeClaudeRegistry(markers: string): Promise<LocalRegistry> {
  const mark = (name: string) => `require('fs').writeFileSync(${JSON.stringify(join(markers, name))}, 'ran')\n`;
  return startLocalRegistry([
    {
      manifest: {
        name: '@anthropic-ai/claude-code',
        version: '2.1.332',
        bin: { claude: 'bin/claude.exe' },
        scripts: { postinstall: 'node install.cjs' },
        optionalDependencies: { [PLATFORM_PKG]: '2.1.332' },
      },
      files: {
        'install.cjs': mark('postinstall'),
        // The stub the real package ships, replaced by its postinstall (here: by baton's reviewed one).
        'bin/claude.exe': '#!/bin/sh\necho "claude stub: the native binary was never put in place" >&2\nexit 1\n',
      },
    },
    {
      manifest: { name: PLATFORM_PKG, version: '2.1.332', scripts: { install: 'node install.cjs' } },
      files: {
        'install.cjs': mark('platform-install'),
        claude: `#!/usr/bin/env node\nimport(${JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'tests/fixtures/fake-agents/lib/fake.mjs')).href)}).then((fake) => fake.run('claude'));\n`,
      },
      optional: true,
    },
  ]);
}

/** The Action as a copy of this checkout's (bundle, action.yml) whose claude-code lockfile is `lock`. */
function actionWithLockfile(lock: Record<string, string>): string {
  const dir = temp('baton-action-');
  mkdirSync(join(dir, 'dist'));
  for (const f of ['action.yml', 'package.json', 'dist/action.js']) copyFileSync(join(PROJECT_ROOT, f), join(dir, f));
  for (const d of ['schema', 'workflows-library']) symlinkSync(join(PROJECT_ROOT, d), join(dir, d));
  mkdirSync(join(dir, 'agent-clis', 'claude-code'), { recursive: true });
  for (const [f, text] of Object.entries(lock)) writeFileSync(join(dir, 'agent-clis', 'claude-code', f), text);
  return dir;
}

async function runWorker(actionDir: string, sandbox = false): Promise<{ job: NonNullable<ReturnType<typeof workerJob>>; log: string; issue: number }> {
  const npmCache = temp('baton-npm-cache-');
  if (sandbox) {
    // The job runs as another user (the runner's sandbox): the test's folders it reads and writes are open to it.
    chmodSync(actionDir, 0o755);
    chmodSync(npmCache, 0o1777);
  }
  h = await startActionsOnly({
    ...(sandbox ? { sandbox: { ports: [Number(new URL(registry!.url).port)] } } : {}),
    init: ['--mode', 'actions', '--workflows', 'review-pr'],   // a claude-code workflow no new issue starts (triage now runs on every one)
    files: { '.agents/workflows/quick.yml': QUICK },
    agentScript: [{ write: { 'src/fix.txt': 'fixed\n' }, reply: { done: true } }],
    actionDir,
    fakeAgentsOnPath: false,
    // npm's own cache in a folder of the test: nothing of the fake registry's reaches the user's.
    env: { npm_config_registry: registry!.url, npm_config_cache: npmCache, npm_config_update_notifier: 'false' },
  });
  const issue = (await h.as('alice').rest.issues.create({ ...o, title: 'Widgets break', body: 'Please fix.', labels: ['baton:quick'] })).data;
  await h.settle();
  const job = workerJob();
  expect(job, 'the worker ran').toBeDefined();
  return { job: job!, log: job!.log.join('\n'), issue: issue.number };
}

function workerJob() {
  const run = [...h!.runner.store.runs.values()].find((r) => r.path === '.github/workflows/baton-worker.yml');
  return run?.jobs.find((j) => j.key === 'agent');
}

async function statusComment(issue: number): Promise<string> {
  const comments = (await h!.as('alice').rest.issues.listComments({ ...o, issue_number: issue })).data;
  return comments.find((c) => c.user?.login === 'github-actions[bot]' && c.body?.includes('baton:record'))?.body ?? '';
}

describe("the worker installs agent CLIs from the Action's lockfiles", () => {
  it.each([
    ['', false],
    [", in the runner's sandbox: into the folder the fence made for it, outside RUNNER_TEMP", true],
  ])('installs claude-code from its lockfile with package scripts off, puts the native binary in place, and the agent runs from the job-local prefix%s', async (_, sandbox) => {
    const markers = temp('baton-markers-');
    registry = await fakeClaudeRegistry(markers);
    const { job, log, issue } = await runWorker(actionWithLockfile(registry.project('baton-agent-cli-claude-code')), sandbox);
    const prefix = /claude-code: claude 2\.1\.332 installed in (\S+)/.exec(log)?.[1];
    if (sandbox) {
      expect(log).toContain('::notice::baton sandbox: in force: agent-user, packet-filter, resource-limits');
      expect(prefix, log).toMatch(/\/baton-clis\/claude-code$/);
      // Not in RUNNER_TEMP (the job's `temp` folder), which the fence closes to the agent's user.
      expect(prefix).not.toContain('/temp/');
    } else {
      expect(prefix, log).toMatch(/\/temp\/baton-clis\/claude-code$/);
    }

    const step = (name: string) => job.steps.find((s) => s.name === name);
    expect(step(INSTALL_STEP)?.conclusion, log).toBe('success');
    expect(log).toContain("claude-code: installing @anthropic-ai/claude-code@2.1.332 from baton's lockfile (agent-clis/claude-code/package-lock.json), package scripts off");
    expect(log).toContain(`claude-code: put ${PLATFORM_PKG}/claude in place of its stub`);
    // The signature check's result is in the log, whichever it is (this registry signs nothing).
    expect(log).toMatch(/claude-code: registry signatures (verified|not verified)/);
    expect(registry.downloads()).toBe(2);
    // Neither package's install script ran.
    expect(existsSync(join(markers, 'postinstall'))).toBe(false);
    expect(existsSync(join(markers, 'platform-install'))).toBe(false);
    // The agent ran (the CLI was found on PATH, in the job's prefix) and its work went through.
    expect(step('baton agent')?.conclusion, log).toBe('success');
    expect(await statusComment(issue)).toMatch(/run `quick-\d+-1` — succeeded/);
    const branch = (await h!.as('alice').rest.repos.getContent({ ...o, path: 'src/fix.txt', ref: `baton/quick-${issue}-1` })).data as { content: string };
    expect(Buffer.from(branch.content, 'base64').toString()).toBe('fixed\n');
  });

  // The CLI's own package (npm ci fails: EINTEGRITY) and its platform package (optional: npm
  // skips it and exits 0; baton's check of the installed tree catches it).
  const TAMPERED = [
    { entry: '@anthropic-ai/claude-code', says: "claude-code: integrity mismatch — the registry served @anthropic-ai/claude-code@2.1.332 with a different hash than baton's lockfile (agent-clis/claude-code/package-lock.json) holds" },
    { entry: PLATFORM_PKG, says: `claude-code: ${PLATFORM_PKG}@2.1.332 is in baton's lockfile (agent-clis/claude-code/package-lock.json) for this platform, but npm did not install it: npm skips an optional package whose tarball does not match the integrity hash of the lockfile` },
  ];
  for (const { entry, says } of TAMPERED) {
    it(`fails the job at the install step, naming the package, when the lockfile entry of ${entry === PLATFORM_PKG ? 'the platform package' : 'the CLI'} does not match what the registry serves`, async () => {
      const markers = temp('baton-markers-');
      registry = await fakeClaudeRegistry(markers);
      const project = registry.project('baton-agent-cli-claude-code');
      const lock = JSON.parse(project['package-lock.json']);
      // A lockfile entry someone changed: a well-formed hash of other bytes.
      lock.packages[`node_modules/${entry}`].integrity = `sha512-${createHash('sha512').update('other bytes').digest('base64')}`;
      const { job, log, issue } = await runWorker(actionWithLockfile({ ...project, 'package-lock.json': JSON.stringify(lock, null, 2) }));

      expect(job.conclusion).toBe('failure');
      const step = (name: string) => job.steps.find((s) => s.name === name);
      expect(step(INSTALL_STEP)?.conclusion).toBe('failure');
      expect(log).toContain(says);
      expect(log).not.toContain('retrying');
      // The agent never started; nothing of the package ran.
      expect(step('baton agent')?.conclusion).toBe('skipped');
      expect(existsSync(join(markers, 'postinstall'))).toBe(false);
      expect(await statusComment(issue)).not.toMatch(/— succeeded/);
    });
  }
});
