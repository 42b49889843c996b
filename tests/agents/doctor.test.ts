// `baton doctor` with the fake CLIs on PATH: what is runnable, names of credentials only.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { doctorCommand, help } from '../../src/cli/commands/doctor.ts';
import { pinnedStatus } from '../../src/agents/doctor.ts';
import { FAKE_AGENTS, fakes } from './helpers.ts';
import { GITHUB_ACTION_PINS, pinnedUses } from '../../src/init/action-pins.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

async function doctor(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await doctorCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t), cwd }, env);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('baton doctor', () => {
  it('lists each backend: binary and version, credential names, runnable', async () => {
    const f = fakes({ OPENAI_API_KEY: '', CODEX_API_KEY: '', GEMINI_API_KEY: '', ANTHROPIC_API_KEY: 'sk-ant-very-secret' });
    cleanup.push(f.dir);
    const { code, out } = await doctor([], f.env, f.dir);
    expect(code).toBe(0);
    expect(out).toContain('✓ claude-code  runnable');
    expect(out).toContain(`${FAKE_AGENTS}claude — 2.1.332 (Claude Code)`);
    expect(out).toContain('version      2.1.332 (the version baton is tested with)');
    expect(out).toContain('credentials  ANTHROPIC_API_KEY');
    expect(out).toContain('✗ codex        not runnable: no credentials');
    expect(out).toContain('none set (needs one of CODEX_API_KEY)');
    expect(out).toContain('✓ command      runnable');
    expect(out).toMatch(/✓ git +\S+git — git version/);
    expect(out).not.toContain('sk-ant-very-secret');
  });

  it('says how to install a CLI that is not on PATH, and reports JSON', async () => {
    const f = fakes({ PATH: '/nonexistent' });
    cleanup.push(f.dir);
    const text = await doctor([], f.env, f.dir);
    expect(text.out).toContain("✗ claude-code  not runnable: `claude` is not on PATH");
    expect(text.out).toContain('not found (install: npm install -g @anthropic-ai/claude-code@2.1.332)');
    expect(text.out).toContain('version      not installed (baton is tested with 2.1.332)');
    const json = JSON.parse((await doctor(['--json'], f.env, f.dir)).out);
    expect(json.backends.find((b: { name: string }) => b.name === 'claude-code')).toMatchObject({ path: null, runnable: false, credentials: { present: ['ANTHROPIC_API_KEY'], ok: true } });
  });

  it('names the workflows using each backend and warns about CI that Actions-only mode never starts', async () => {
    const f = fakes();
    cleanup.push(f.dir);
    const repo = mkdtempSync(join(tmpdir(), 'baton-doctor-'));
    cleanup.push(repo);
    mkdirSync(join(repo, '.agents/workflows'), { recursive: true });
    mkdirSync(join(repo, '.github/workflows'), { recursive: true });
    writeFileSync(
      join(repo, '.agents/workflows/fix.yml'),
      'agents:\n  coder: { uses: codex }\nsteps:\n  - id: impl\n    agent: coder\n    prompt: Go.\n  - id: ci\n    checks: { names: [test], fix: impl }\n',
    );
    writeFileSync(join(repo, '.github/workflows/baton.yml'), 'name: baton\n');
    const { out } = await doctor([], f.env, repo);
    expect(out).toMatch(/✓ codex +runnable\n(.*\n){3} {4}used by {6}fix/);
    // What the agents may reach in the sandbox, by workflow.
    expect(out).toContain('\n  fix\n    agent coder (codex), sandbox preferred: may reach api.openai.com (codex model API)\n');
    expect(JSON.parse((await doctor(['--json'], f.env, repo)).out).sandbox).toEqual({ fix: ['agent coder (codex), sandbox preferred: may reach api.openai.com (codex model API)'] });
    // Which protections a local run gets here: the proxy always; the fence not (no setup step ran on this machine).
    expect(out).toContain('\nsandbox protections for local runs on this machine (docs/security.md, "Isolation")\n  ✓ the egress proxy\n  ✗ the agent\'s own user: local mode');
    expect(out).toMatch(/\n {2}✗ the packet filter: local mode/);
    expect(JSON.parse((await doctor(['--json'], f.env, repo)).out).protections).toMatchObject({ enforced: ['egress-proxy'], missing: [{ protection: 'agent-user' }, { protection: 'packet-filter' }, { protection: 'resource-limits' }] });
    // The same from a subfolder of the repository.
    mkdirSync(join(repo, 'src/lib'), { recursive: true });
    expect((await doctor([], f.env, join(repo, 'src/lib'))).out).toBe(out);
    expect(out).toContain('warning: fix/ci waits for CI, but in Actions-only mode pushes made with GITHUB_TOKEN start no workflows');
    expect(out).toContain('warning: baton opens the run\'s pull request with the job\'s GITHUB_TOKEN, which GitHub refuses unless Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests" is on');
    writeFileSync(join(repo, '.github/workflows/baton.yml'), `steps:\n  - uses: ${pinnedUses(GITHUB_ACTION_PINS.appToken)}\n`);
    expect((await doctor([], f.env, repo)).out).not.toContain('warning:');
    // The same step by tag: a tag can be moved under the job that holds the write token.
    writeFileSync(join(repo, '.github/workflows/baton.yml'), 'steps:\n  - uses: actions/create-github-app-token@v2\n');
    expect((await doctor([], f.env, repo)).out).toContain('warning: .github/workflows/baton.yml:2: `uses: actions/create-github-app-token@v2` is not pinned to a full commit SHA');
  });

  it('says when the installed CLI is not the version baton is tested with', async () => {
    const f = fakes();
    cleanup.push(f.dir);
    const bin = join(f.dir, 'old-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'codex'), '#!/bin/sh\necho "codex-cli 0.46.0"\n', { mode: 0o755 });
    const { out } = await doctor([], { ...f.env, PATH: `${bin}:${f.env.PATH}` }, f.dir);
    expect(out).toContain('version      installed codex-cli 0.46.0, baton is tested with 0.169.0');
    expect(out).toContain('version      2.1.332 (the version baton is tested with)');
  });

  it('recognises the pinned version at the end of a sentence, as copilot prints it, but not inside a longer version', () => {
    expect(pinnedStatus('1.0.102', 'GitHub Copilot CLI 1.0.102.')).toBe('1.0.102 (the version baton is tested with)');
    expect(pinnedStatus('1.0.102', 'GitHub Copilot CLI 1.0.102.4')).toMatch(/^installed /);
    expect(pinnedStatus('1.0.102', 'GitHub Copilot CLI 1.0.1023')).toMatch(/^installed /);
  });

  it('does not count OPENAI_API_KEY for codex, and says what to set instead', async () => {
    const f = fakes({ OPENAI_API_KEY: 'sk-openai', CODEX_API_KEY: '' });
    cleanup.push(f.dir);
    const { out } = await doctor([], f.env, f.dir);
    expect(out).toContain('✗ codex        not runnable: no credentials');
    expect(out).toContain('none set (needs one of CODEX_API_KEY); OPENAI_API_KEY is set, but `codex exec` does not read OPENAI_API_KEY: set CODEX_API_KEY to the same key');
  });

  it('does not count a classic personal access token for copilot, saying why', async () => {
    const f = fakes({ COPILOT_GITHUB_TOKEN: 'ghp_0123456789abcdef0123456789abcdef0123', GH_TOKEN: '', GITHUB_TOKEN: '' });
    cleanup.push(f.dir);
    const { out } = await doctor([], f.env, f.dir);
    expect(out).toMatch(/✗ copilot .*not runnable/);
    expect(out).toMatch(/COPILOT_GITHUB_TOKEN: .*ghp_/);
  });

  it('has help and refuses unknown options', async () => {
    expect(help).toContain('Usage: baton doctor');
    await expect(doctor(['--frobnicate'], process.env, process.cwd())).rejects.toMatchObject({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
  });
});
