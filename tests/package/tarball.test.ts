// The package as a user gets it: `npm pack` (which builds it, through `prepack`), the tarball
// installed into a fresh folder, and the installed `baton` run in fresh git repositories
// outside baton's checkout. One pack and one install, shared by every test here.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GIT_ENV, ROOT } from '../local/helpers.ts';

interface PackageJson {
  name: string;
  version: string;
  files: string[];
}

const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
const STAMP = { repo: 'baton-dev/baton', version: `v${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJson).version}`, commit: 'fedcba9876543210fedcba9876543210fedcba98' };
const MB = 1024 * 1024;

let stage: string;
let tarball: string;
let installed: string;
let bin: string;

/**
 * Packs a copy of the checkout, so that `prepack`'s build writes into the copy and never
 * rewrites the worktree's dist/ while other tests read it.
 */
function packCopy(): string {
  const copy = join(stage, 'checkout');
  mkdirSync(join(copy, 'dist'), { recursive: true });
  for (const entry of new Set([...PKG.files, 'package.json', 'README.md', 'src', 'scripts'])) {
    if (entry === 'dist') cpSync(join(ROOT, 'dist/action.js'), join(copy, 'dist/action.js'));
    else if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  // What the release stamps before it packs (scripts/release/stamp-pin.ts; tests/release/stamp-pin.test.ts runs it on a real tag).
  writeFileSync(join(copy, 'action-pin.json'), JSON.stringify(STAMP));
  const out = join(stage, 'packed');
  mkdirSync(out);
  execFileSync('npm', ['pack', '--pack-destination', out], { cwd: copy, stdio: 'ignore' });
  const [file] = readdirSync(out);
  return join(out, file!);
}

function sizeOf(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

function freshRepo(name: string): string {
  const dir = join(stage, name);
  mkdirSync(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_ENV }, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# a repository that is not baton\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

function baton(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  try {
    const stdout = execFileSync(bin, args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, stdout: e.stdout, stderr: e.stderr };
  }
}

beforeAll(() => {
  stage = mkdtempSync(join(tmpdir(), 'baton-tarball-'));
  tarball = packCopy();
  installed = join(stage, 'install');
  mkdirSync(installed);
  writeFileSync(join(installed, 'package.json'), '{ "private": true }\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', tarball], { cwd: installed, stdio: 'ignore' });
  bin = join(installed, 'node_modules/.bin/baton');
}, 240_000);

afterAll(() => rmSync(stage, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships the built files and none of the sources or tests', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
    for (const f of ['bin/baton.js', 'dist/cli.js', 'dist/app.js', 'dist/action.js', 'dist/index.js', 'dist/types/index.d.ts', 'schema/workflow.schema.json', 'workflows-library/local-demo.yml', 'app.yml', 'action.yml', 'action-pin.json', 'agent-clis/claude-code/package-lock.json']) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => /^(src|tests|scripts|bench|node_modules)\//.test(f) || f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs with its dependencies in under 60 MB', () => {
    expect(sizeOf(join(installed, 'node_modules')) / MB).toBeLessThan(60);
  });

  it('baton --version names the package and its version', () => {
    const r = baton(['--version'], stage);
    expect(r.stdout.trim()).toBe(`${PKG.name} ${PKG.version}`);
  });

  it.each(['app', 'actions'] as const)('baton init --mode %s sets up a fresh repository whose workflows validate', (mode) => {
    const repo = freshRepo(`init-${mode}`);
    const init = baton(['init', '--mode', mode], repo);
    expect(init.code, init.stderr).toBe(0);
    expect(existsSync(join(repo, '.agents/workflows/fix-issue.yml'))).toBe(true);
    expect(existsSync(join(repo, '.github/workflows/baton-worker.yml'))).toBe(true);
    expect(existsSync(join(repo, '.github/workflows/baton.yml'))).toBe(mode === 'actions');
    // The installed baton pins its own Action to the release's commit, found next to its bundle; no warning.
    expect(readFileSync(join(repo, '.github/workflows/baton-worker.yml'), 'utf8')).toContain(`uses: baton-dev/baton@${STAMP.commit} # ${STAMP.version}\n`);
    expect(init.stderr).not.toContain('no release pin');
    const validate = baton(['validate'], repo);
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
  });

  it('baton validate reports a broken workflow with its file and line', () => {
    const repo = freshRepo('validate-broken');
    mkdirSync(join(repo, '.agents/workflows'), { recursive: true });
    writeFileSync(join(repo, '.agents/workflows/broken.yml'), 'steps:\n  - id: a\n    run: "true"\n    needs: [nowhere]\n');
    const r = baton(['validate'], repo);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/broken\.yml:4:\d+: .*nowhere/);
  });

  it('baton run local-demo --local runs the bundled demo to its end in a fresh repository, as the README says', () => {
    const repo = freshRepo('local-demo');
    const r = baton(['run', 'local-demo', '--local'], repo);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/run local-demo-1 succeeded: branch baton\/local-demo-1/);
    expect(r.stdout).toContain('git push -u');
  });

  it('baton run --local runs a workflow of the repository to its end', () => {
    const repo = freshRepo('local-run');
    mkdirSync(join(repo, '.agents/workflows'), { recursive: true });
    writeFileSync(join(repo, '.agents/workflows/hello.yml'), 'name: hello\nsteps:\n  - id: write\n    run: "echo hello > HELLO.md"\n');
    execFileSync('git', ['add', '-A'], { cwd: repo, env: { ...process.env, ...GIT_ENV } });
    execFileSync('git', ['commit', '-q', '-m', 'hello workflow'], { cwd: repo, env: { ...process.env, ...GIT_ENV } });
    const r = baton(['run', 'hello', '--local'], repo);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/run hello-1 succeeded: branch baton\/hello-1/);
    expect(execFileSync('git', ['show', 'baton/hello-1:HELLO.md'], { cwd: repo, encoding: 'utf8' })).toBe('hello\n');
  });

  it('baton mcp initializes and lists its tools to the SDK client', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], cwd: stage, env: { ...process.env, ...GIT_ENV } as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'baton-tarball-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'baton', version: PKG.version });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['baton_list_workflows', 'baton_validate', 'baton_start_run', 'baton_get_run', 'baton_wait']));
    } finally {
      await client.close();
    }
  }, 30_000);

  it('the library entry loads and validates a manifest', () => {
    const script = `import { loadWorkflowText, PACKAGE_NAME } from '${PKG.name}';
const ok = loadWorkflowText('ok.yml', 'steps:\\n  - id: a\\n    run: "true"\\n');
const bad = loadWorkflowText('bad.yml', 'steps: 3\\n');
console.log(JSON.stringify({ name: PACKAGE_NAME, ok: ok.valid, bad: bad.valid, errors: bad.diagnostics.length }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: installed, encoding: 'utf8' });
    expect(JSON.parse(out)).toMatchObject({ name: PKG.name, ok: true, bad: false });
    expect(JSON.parse(out).errors).toBeGreaterThan(0);
  });

  it('its type declarations compile in a strict TypeScript project that uses them', () => {
    writeFileSync(join(installed, 'use.ts'), `import { loadWorkflowText, type Diagnostic, type Workflow } from '${PKG.name}';
const r = loadWorkflowText('a.yml', 'steps: []');
const first: Diagnostic | undefined = r.diagnostics[0];
const steps: Workflow['steps'] | undefined = r.loaded?.workflow.steps;
export const summary: string = \`\${r.valid} \${first?.line ?? 0} \${steps?.length ?? 0}\`;
`);
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    // No @types: the public declarations must stand on their own (and checking Node's types would triple the time).
    writeFileSync(join(installed, 'tsconfig.json'), JSON.stringify({ compilerOptions: { noEmit: true, strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', types: [] }, files: ['use.ts'] }));
    const args = ['-p', 'tsconfig.json'];
    let out = '';
    try {
      execFileSync(process.execPath, [tsc, ...args], { cwd: installed, encoding: 'utf8' });
    } catch (err) {
      out = (err as { stdout: string }).stdout;
    }
    expect(out).toBe('');
  }, 60_000);

  it('the App (dist/app.js, what `npm start` and the container run) answers Probot\'s /ping', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const app = spawn(process.execPath, [join(installed, 'node_modules', PKG.name, 'dist/app.js')], {
      cwd: stage,
      env: { PATH: process.env.PATH, APP_ID: '1', PRIVATE_KEY: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), WEBHOOK_SECRET: 'secret', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    app.stdout.on('data', (d: Buffer) => (log += d.toString()));
    app.stderr.on('data', (d: Buffer) => (log += d.toString()));
    try {
      // Wait on the server answering, not on a sleep: retry the connection until it is up.
      let answer = '';
      for (let i = 0; i < 200 && answer === ''; i++) {
        answer = await fetch(`http://127.0.0.1:${port}/ping`).then((r) => r.text(), () => '');
        if (answer === '') await new Promise((r) => setTimeout(r, 50));
        if (app.exitCode !== null) break;
      }
      expect(answer, log).toBe('PONG');
    } finally {
      app.kill();
    }
  }, 30_000);
});
