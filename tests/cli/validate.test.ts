// The CLI as a person runs it: a real subprocess of bin/baton.js, real files.
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const BIN = new URL('../../bin/baton.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'baton-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function baton(args: string[], cwd = dir): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function write(rel: string, text: string): string {
  const path = join(dir, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const repoRoot = new URL('../..', import.meta.url).pathname;

describe('baton validate', () => {
  it('accepts the bundled library', async () => {
    const r = await baton(['validate', 'workflows-library'], repoRoot);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^\d+ workflow files valid\n$/);
    expect(r.code).toBe(0);
  });

  it('reports a broken file compiler-style and exits 1', async () => {
    write('broken/.agents/workflows/bad.yml', 'steps:\n  - id: a\n    run: "true"\n  - id: b\n    run: "true"\n    needs: [c]\n');
    const r = await baton(['validate'], join(dir, 'broken'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('.agents/workflows/bad.yml:6:13: step `b` needs `c`, which is not a step of this workflow; steps are: a, b');
    expect(r.stderr).toContain('1 of 1 workflow file invalid');
  });

  it("refuses an answer put into a shell command, at its line, saying to pass it through env:", async () => {
    // Answers were trusted in `run:` before; a manifest that relied on it is an error now, not a warning.
    write(
      'answers/.agents/workflows/relay.yml',
      'steps:\n  - id: clarify\n    ask: { questions: ["Error output?"] }\n  - id: log\n    needs: [clarify]\n    run: echo "${{ steps.clarify.outputs.answers[0] }}" >> log.txt\n',
    );
    const r = await baton(['validate'], join(dir, 'answers'));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      ".agents/workflows/relay.yml:6:16: step `log` puts `steps.clarify.outputs.answers[0]` into a shell command; an answer may quote anyone (a reporter's error output pasted into it), so anyone writes that text",
    );
    expect(r.stderr).toContain('Pass it through `env:` instead (`env: { ANSWERS: ${{ steps.clarify.outputs.answers[0] }} }`) and use "$ANSWERS" in the command');
    expect(r.stderr).toContain('1 of 1 workflow file invalid');
  });

  it('finds the repository\'s .agents/workflows from any subfolder of it', async () => {
    write('nested/.git/HEAD', 'ref: refs/heads/main\n');
    write('nested/.agents/workflows/bad.yml', 'steps:\n  - id: a\n    run: "true"\n    needs: [c]\n');
    mkdirSync(join(dir, 'nested/src/deep'), { recursive: true });
    const r = await baton(['validate'], join(dir, 'nested/src/deep'));
    expect(r.stderr).toContain('../../.agents/workflows/bad.yml:4:13: step `a` needs `c`');
    expect(r.code).toBe(1);
    // Never past the repository: a subfolder of a repository without workflows finds none.
    write('nested/sub/.git/HEAD', 'ref: refs/heads/main\n');
    const inner = await baton(['validate'], join(dir, 'nested/sub'));
    expect(inner.code).toBe(2);
    expect(inner.stderr).toContain('no .agents/workflows folder');
  });

  it('prints one JSON document with --json', async () => {
    const bad = write('json/bad.yml', 'steps:\n  - id: a\n    run: "true"\n    retries: -1\n');
    const good = write('json/good.yml', 'steps:\n  - id: a\n    run: "true"\n');
    const r = await baton(['validate', bad, good, '--json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.stdout);
    expect(doc.valid).toBe(false);
    expect(doc.files).toHaveLength(2);
    expect(doc.files[0]).toMatchObject({ file: bad, valid: false });
    expect(doc.files[0].errors[0]).toMatchObject({ line: 4, column: 14, pointer: '/steps/0/retries' });
    expect(doc.files[0].errors[0].message).toContain('`retries` in step `a` is -1; it must be at least 0');
    expect(doc.files[1]).toMatchObject({ file: good, valid: true, errors: [] });
  });

  it('refuses two workflows that answer the same label', async () => {
    write('collide/one.yml', 'on: { labels: [baton:go] }\nsteps: [{ id: a, run: "true" }]\n');
    write('collide/two.yml', 'on:\n  labels: [other, baton:go]\nsteps: [{ id: a, run: "true" }]\n');
    const r = await baton(['validate', 'collide']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('collide/two.yml:2:19: label `baton:go` also belongs to workflow `one` (collide/one.yml)');
  });

  it('resolves extends against the library and reports errors in the extending file', async () => {
    write('ext/good.yml', 'extends: fix-issue\nname: my-fix\non: { labels: [my-fix], commands: [my-fix] }\n');
    const good = await baton(['validate', 'ext/good.yml']);
    expect(good.stdout).toContain('1 workflow file valid');
    expect(good.code).toBe(0);
    write('ext/bad.yml', 'extends: fix-issue\nname: my-fix2\non: { labels: [my-fix2], commands: [my-fix2] }\nsteps:\n  - id: pr\n    needs: [nowhere]\n    pull-request: { title: x }\n');
    const bad = await baton(['validate', 'ext/bad.yml']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/ext\/bad\.yml:6:13: step `pr` needs `nowhere`, which is not a step of this workflow/);
  });

  it('exits 2 when nothing is found or the usage is wrong', async () => {
    expect((await baton(['validate', 'no-such-dir'])).code).toBe(2);
    write('empty/readme.txt', 'nothing here');
    const empty = await baton(['validate', 'empty']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no workflow files');
    const opt = await baton(['validate', '--jsn']);
    expect(opt.code).toBe(2);
    expect(opt.stderr).toContain("Unknown option '--jsn'");
    const cmd = await baton(['valdate']);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('unknown command "valdate"');
  });

  it('has help for the tool and each command', async () => {
    const top = await baton(['--help']);
    expect(top.code).toBe(0);
    expect(top.stdout).toContain('validate');
    expect(top.stdout).toContain('graph');
    const sub = await baton(['validate', '--help']);
    expect(sub.code).toBe(0);
    expect(sub.stdout).toContain('Usage: baton validate [PATH…] [--json]');
    // `baton help <command>` is that command's help, not the general one.
    for (const cmd of ['run', 'validate', 'init']) {
      const viaHelp = await baton(['help', cmd]);
      expect(viaHelp.code, cmd).toBe(0);
      expect(viaHelp.stdout, cmd).toContain(`Usage: baton ${cmd} `);
      expect(viaHelp.stdout, cmd).toBe((await baton([cmd, '--help'])).stdout);
    }
    const unknown = await baton(['help', 'valdate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "valdate"');
  });
});

describe('baton graph', () => {
  it('prints the step DAG as mermaid', async () => {
    const file = write('graph/wf.yml', 'steps:\n  - id: plan\n    run: "true"\n  - id: a\n    run: "true"\n  - id: b\n    needs: [plan]\n    run: "true"\n  - id: join\n    needs: [a, b]\n    run: "true"\n');
    const r = await baton(['graph', file]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('flowchart LR');
    expect(lines).toContain('  s_plan --> s_a');
    expect(lines).toContain('  s_plan --> s_b');
    expect(lines).toContain('  s_a --> s_join');
    expect(lines).toContain('  s_b --> s_join');
  });

  it('says, as mermaid comments, what each agent may reach in the sandbox and which steps narrow it', async () => {
    const file = write(
      'graph/sandbox.yml',
      'agents:\n  coder:\n    uses: claude-code\n    sandbox: required\n    network: { allow: [pypi.org] }\n    mcp-servers:\n      docs: { command: npx, args: [-y, "@acme/docs"] }\n      search: { url: "https://mcp.example.com/mcp" }\n' +
        'steps:\n  - id: impl\n    agent: coder\n    prompt: Go.\n    network: { allow: [pypi.org] }\n  - id: test\n    run: npm test\n    network: off\n',
    );
    const r = await baton(['graph', file]);
    expect(r.code).toBe(0);
    const comments = r.stdout.trim().split('\n').filter((l) => l.startsWith('%%'));
    expect(comments).toEqual([
      '%% agent coder (claude-code), sandbox required: may reach api.anthropic.com (claude-code model API), registry.npmjs.org (MCP server docs), mcp.example.com (MCP server search), pypi.org (network.allow)',
      '%% step impl narrows agent coder: may reach its model API and pypi.org',
      '%% step test (run): may reach nothing',
    ]);
    expect(r.stdout.trim().split('\n').filter((l) => !l.startsWith('%%'))[0]).toBe('flowchart LR');
  });

  it('takes a workflow name as `run` does: the repository\'s first, then the library\'s', async () => {
    write('named/.git/HEAD', 'ref: refs/heads/main\n');
    write('named/.agents/workflows/mine.yml', 'steps:\n  - id: only\n    run: "true"\n');
    write('named/.agents/workflows/triage.yml', 'steps:\n  - id: shadow\n    run: "true"\n');
    mkdirSync(join(dir, 'named/docs'), { recursive: true });
    const mine = await baton(['graph', 'mine'], join(dir, 'named/docs'));
    expect(mine.stderr).toBe('');
    expect(mine.stdout).toContain('s_only');
    expect((await baton(['graph', 'triage'], join(dir, 'named'))).stdout).toContain('s_shadow');
    const library = await baton(['graph', 'local-demo'], join(dir, 'named'));
    expect(library.code).toBe(0);
    expect(library.stdout).toContain('s_note --> s_verify');
    const unknown = await baton(['graph', 'nope'], join(dir, 'named'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no workflow `nope`.*known: .*mine/);
  });
});
