// `baton init`: what it writes in each mode, and that it never overwrites without --force.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { initCommand } from '../../src/cli/commands/init.ts';
import { main } from '../../src/cli/main.ts';
import { UsageError } from '../../src/cli/io.ts';
import { tokenWarnings } from '../../src/manifest/warn-token.ts';
import { parseWorkflowFile } from '../emulator/actions/workflow-file.ts';
import { docsUrl } from '../../src/names.ts';
import { GITHUB_ACTION_PINS, pinnedUses } from '../../src/init/action-pins.ts';

/** A pin as a step's `uses:` reads once YAML drops the version comment. */
const usesOf = (p: { repo: string; commit: string }) => `${p.repo}@${p.commit}`;

const ROOT = new URL('../..', import.meta.url).pathname;
import { execFileSync } from 'node:child_process';
import { ghLabelCreate } from '../../src/init/plan.ts';

/** The arguments `gh` would receive from a printed command line, as a POSIX shell splits it. */
function ghArgs(line: string): string[] {
  const out = execFileSync('sh', ['-c', `gh() { for a in "$@"; do printf '%s\\0' "$a"; done; }; ${line}`], { encoding: 'utf8' });
  return out.split('\0').slice(0, -1);
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function repo(): string {
  const d = mkdtempSync(join(tmpdir(), 'baton-init-test-'));
  dirs.push(d);
  return d;
}

async function init(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await initCommand(args, { out: (t) => out.push(t), err: (t) => err.push(t), cwd }, false);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const read = (d: string, p: string) => readFileSync(join(d, p), 'utf8');

describe('baton init', () => {
  it('app mode: the workflow and the worker workflow, no baton.yml; names the secrets', async () => {
    const d = repo();
    const r = await init(d, ['--mode', 'app']);
    expect(r.code).toBe(0);
    expect(existsSync(join(d, '.agents/workflows/fix-issue.yml'))).toBe(true);
    expect(existsSync(join(d, '.github/workflows/baton.yml'))).toBe(false);
    expect(r.out).toContain('.github/workflows/baton-worker.yml');
    expect(r.out).toMatch(/secrets[^\n]*\n {2}ANTHROPIC_API_KEY\n {2}CODEX_API_KEY/);
    const worker = read(d, '.github/workflows/baton-worker.yml');
    const parsed = parseWorkflowFile('.github/workflows/baton-worker.yml', worker);
    expect(Object.keys(parsed.dispatchInputs!)).toEqual(['run', 'step', 'attempt', 'index', 'base', 'task']);
    expect(parsed.jobs.map((j) => j.id)).toEqual(['agent']);
    const steps = parsed.jobs[0]!.steps;
    // The Action only locates its code; the agent starts from a `run:` step, which holds no
    // token, with the task as an environment variable (never in the script) and the keys.
    const locate = steps.find((s) => s.with.mode === 'locate')!;
    expect(locate.uses).toBe('baton-dev/baton@v1');
    expect(locate.with.token).toBe('');
    expect(steps.filter((s) => s.uses?.startsWith('baton-dev/baton')).length).toBe(1);
    const agent = steps.find((s) => s.env.INPUT_MODE === 'agent')!;
    expect(agent.uses).toBeUndefined();
    expect(agent.run).toBe('exec "$BATON_NODE" "$BATON_ENTRY"');
    expect(agent.env).toEqual({
      BATON_NODE: '${{ steps.baton.outputs.node }}',
      BATON_ENTRY: '${{ steps.baton.outputs.entry }}',
      INPUT_MODE: 'agent',
      INPUT_TASK: '${{ inputs.task }}',
      ANTHROPIC_API_KEY: '${{ secrets.ANTHROPIC_API_KEY }}',
      // `codex exec` reads CODEX_API_KEY, not OPENAI_API_KEY.
      CODEX_API_KEY: '${{ secrets.CODEX_API_KEY }}',
    });
    // The CLIs come from baton's lockfiles (mode install-clis), after sudo and docker are dropped
    // on GitHub-hosted runners (tests/init/worker-install-order.test.ts holds the order for every backend).
    const install = steps.find((s) => s.env.INPUT_MODE === 'install-clis')!;
    expect(install.run).toBe('"$BATON_NODE" "$BATON_ENTRY"');
    expect(install.env.INPUT_CLIS).toBe('claude-code codex');
    expect(steps.indexOf(install)).toBe(steps.indexOf(agent) - 1);
    const drop = steps[steps.indexOf(install) - 1]!;
    expect(drop.if).toBe("runner.environment == 'github-hosted' && runner.os == 'Linux'");
    expect(drop.run).toContain('sudo rm /etc/sudoers.d/runner');
    expect(drop.run).toContain('sudo chown -R root:root "$RUNNER_WORKSPACE/../_actions"');
    expect(steps.indexOf(locate)).toBeLessThan(steps.indexOf(drop));
    // codex's bubblewrap sandbox needs user namespaces, which AppArmor restricts on
    // ubuntu-24.04: lifted with sudo, so before sudo is dropped.
    const userns = steps.find((s) => s.run?.includes('kernel.apparmor_restrict_unprivileged_userns=0'))!;
    expect(userns.run).toContain('sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0');
    expect(userns.if).toBe("runner.environment == 'github-hosted' && runner.os == 'Linux'");
    expect(steps.indexOf(userns)).toBeLessThan(steps.indexOf(drop));
    // The sandbox's fence is set up as root (the Action's mode sandbox-setup), while sudo is still there.
    const fence = steps.find((s) => s.env?.INPUT_MODE === 'sandbox-setup')!;
    expect(fence.run).toContain('sudo -E "$BATON_NODE" "$BATON_ENTRY"');
    expect(fence.if).toBe("runner.environment == 'github-hosted' && runner.os == 'Linux'");
    expect(steps.indexOf(locate)).toBeLessThan(steps.indexOf(fence));
    expect(steps.indexOf(fence)).toBeLessThan(steps.indexOf(drop));
    const upload = steps.find((s) => s.uses === usesOf(GITHUB_ACTION_PINS.uploadArtifact))!;
    expect(upload.if).toBe('always()');
    // upload-artifact drops dotfiles by default: an agent's .gitignore edit would vanish.
    expect(upload.with['include-hidden-files']).toBe(true);
    expect(parsed.permissions).toEqual({ contents: 'read' });
    // The manifest's editor hint points at the schema of the Action's version.
    expect(read(d, '.agents/workflows/fix-issue.yml')).toContain('$schema=https://raw.githubusercontent.com/baton-dev/baton/v1/schema/workflow.schema.json');
  });

  it('points at the docs by URL, never at a file the repository does not have', async () => {
    for (const mode of ['app', 'actions']) {
      const d = repo();
      const r = await init(d, ['--mode', mode]);
      expect(r.code).toBe(0);
      // Every doc it names is a link into baton's home repository at the Action's major tag.
      const links = [...r.out.matchAll(/https:\/\/\S+/g)].map((m) => m[0]);
      expect(links.length, mode).toBeGreaterThan(0);
      for (const link of links) expect(link).toMatch(/^https:\/\/github\.com\/baton-dev\/baton\/blob\/v1\/docs\/[a-z-]+\.md(#[a-z_-]+)?$/);
      expect(r.out).not.toMatch(/(^|[\s(])docs\//);
      for (const link of links) {
        // The page exists in this repository, and the anchor is one of its headings (GitHub's slugs).
        const url = new URL(link);
        const file = join(ROOT, url.pathname.replace('/baton-dev/baton/blob/v1/', ''));
        expect(existsSync(file), link).toBe(true);
        const slugs = [...readFileSync(file, 'utf8').matchAll(/^#+ (.*)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^\w\s-]/g, '').replace(/\s/g, '-'));
        if (url.hash) expect(slugs, link).toContain(url.hash.slice(1));
      }
    }
    expect(docsUrl('actions-only.md')).toBe('https://github.com/baton-dev/baton/blob/v1/docs/actions-only.md');
  });

  it('actions mode: baton.yml with the run job, per-run concurrency and least permissions; an apply job in the worker', async () => {
    const d = repo();
    const r = await init(d, ['--mode', 'actions', '--workflows', 'triage,write-tests', '--action-ref', 'acme/baton@v2']);
    expect(r.code).toBe(0);
    expect(existsSync(join(d, '.agents/workflows/triage.yml'))).toBe(true);
    expect(existsSync(join(d, '.agents/workflows/write-tests.yml'))).toBe(true);
    expect(existsSync(join(d, '.agents/workflows/fix-issue.yml'))).toBe(false);
    const baton = parseWorkflowFile('.github/workflows/baton.yml', read(d, '.github/workflows/baton.yml'));
    expect(baton.events.sort()).toEqual(['check_run', 'check_suite', 'issue_comment', 'issues', 'pull_request', 'pull_request_review', 'schedule', 'status']);
    expect(baton.permissions).toEqual({});
    const [route, run] = baton.jobs;
    expect(route!.permissions).toEqual({});
    expect(run!.needs).toEqual(['route']);
    expect(run!.concurrency).toEqual({ group: 'baton-${{ needs.route.outputs.key }}', cancelInProgress: false });
    expect(run!.permissions).toEqual({ contents: 'write', issues: 'write', 'pull-requests': 'write', checks: 'write', actions: 'write', statuses: 'read' });
    expect(run!.steps.at(-1)!.uses).toBe('acme/baton@v2');
    const worker = parseWorkflowFile('.github/workflows/baton-worker.yml', read(d, '.github/workflows/baton-worker.yml'));
    const apply = worker.jobs.find((j) => j.id === 'apply')!;
    expect(worker.jobs.find((j) => j.id === 'agent')!.permissions).toEqual({ contents: 'read' });
    expect(apply.needs).toEqual(['agent']);
    const upload = worker.jobs.find((j) => j.id === 'agent')!.steps.find((s) => s.uses === usesOf(GITHUB_ACTION_PINS.uploadArtifact))!;
    expect(upload.with['include-hidden-files']).toBe(true);
    expect(apply.permissions!).toMatchObject({ contents: 'write' });
    expect(apply.steps.map((s) => s.uses)).toEqual([usesOf(GITHUB_ACTION_PINS.downloadArtifact), 'acme/baton@v2']);
    expect(r.out).toContain('ANTHROPIC_API_KEY');
    expect(r.out).not.toContain('APP_PRIVATE_KEY');
    // Said up front: GitHub refuses PRs from GITHUB_TOKEN until this setting is on.
    expect(r.out).toContain('Settings → Actions → General → Workflow permissions → "Allow GitHub Actions to create and approve pull requests" is on (off by default)');
    expect(r.out).toContain('--app-token');
    // No App to create the trigger labels: the commands that do, one per label.
    const lines = r.out.split('\n').filter((l) => l.trim().startsWith('gh label create'));
    expect(lines.map((l) => ghArgs(l.trim()))).toEqual([
      ['label', 'create', 'baton:triage', '--color', '5319e7', '--description', 'Starts the baton workflow triage on this issue or pull request'],
      ['label', 'create', 'baton:write-tests', '--color', '5319e7', '--description', 'Starts the baton workflow write-tests on this issue or pull request'],
    ]);
  });

  it('gh label create lines survive any label name a shell could misread', () => {
    for (const name of ["it's", '$(touch pwned) `id`', 'two words; rm -rf x', '-R other/repo', '"quoted" \\ back', 'ünïcode ✨']) {
      const line = ghLabelCreate({ name, color: '5319e7', description: `for ${name}` });
      const args = ghArgs(line);
      expect(args.slice(0, 2)).toEqual(['label', 'create']);
      expect(args.at(-1) === name || args[2] === name).toBe(true);
      expect(args).toContain(`for ${name}`);
      // A name like an option comes after `--`, where gh takes it as the name.
      if (name.startsWith('-')) expect(args.slice(-2)).toEqual(['--', name]);
    }
  });

  it.each(['app', 'actions'])('%s mode ends by saying how to start a workflow it wrote, never one it did not', async (mode) => {
    const labelsIn = (out: string): string[] => [...new Set(out.match(/\bbaton:[\w-]+/g) ?? [])];
    // A labelled workflow and a local one: the label of the one written, and how to try the local one.
    const both = await init(repo(), ['--mode', mode, '--workflows', 'triage,local-demo']);
    expect(both.code).toBe(0);
    expect(labelsIn(both.out)).toEqual(['baton:triage']);
    expect(both.out).toContain('To start triage, label an issue `baton:triage` (or comment `/baton triage` on it).');
    expect(both.out).toContain('To try local-demo on this checkout first: `npx -y @baton-dev/baton run local-demo --local`.');
    expect(both.out).not.toContain('fix-issue');
    // Only a local workflow: no label to add, the local run to try.
    const local = await init(repo(), ['--mode', mode, '--workflows', 'local-demo']);
    expect(labelsIn(local.out)).toEqual([]);
    expect(local.out).not.toMatch(/label an issue/);
    expect(local.out).toContain('`npx -y @baton-dev/baton run local-demo --local`');
    // A workflow started by a command only: the comment that starts it.
    const command = await init(repo(), ['--mode', mode, '--workflows', 'upgrade-dependency']);
    expect(labelsIn(command.out)).toEqual([]);
    expect(command.out).toContain('To start upgrade-dependency, comment `/baton upgrade-dependency` on an issue.');
  });

  it('says which written workflows start by themselves, and that a pull request reviewer is labelled on a pull request', async () => {
    const r = await init(repo(), ['--mode', 'actions', '--workflows', 'review-pr,ci-doctor,weekly-upkeep']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('To start review-pr, label a pull request `baton:review-pr` (or comment `/baton review-pr` on it).');
    expect(r.out).not.toContain('label an issue');
    expect(r.out).toContain('review-pr also starts by itself on pull requests (opened, synchronize, reopened, ready_for_review).');
    expect(r.out).toContain('ci-doctor also starts by itself when a run of `CI` on main ends in failure.');
    expect(r.out).toContain('weekly-upkeep also starts by itself on its schedule (`0 6 * * 1`, UTC).');
    const triage = await init(repo(), ['--mode', 'app', '--workflows', 'triage']);
    expect(triage.out).toContain('triage also starts by itself on issues (opened).');
  });

  it('app mode prints no label commands: the App creates the labels', async () => {
    const r = await init(repo(), ['--mode', 'app']);
    expect(r.out).not.toContain('gh label create');
  });

  it('refuses to overwrite files without --force, naming them and writing nothing', async () => {
    const d = repo();
    mkdirSync(join(d, '.github/workflows'), { recursive: true });
    writeFileSync(join(d, '.github/workflows/baton-worker.yml'), 'mine\n');
    const r = await init(d, ['--mode', 'actions']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('.github/workflows/baton-worker.yml');
    expect(r.err).toContain('--force');
    expect(read(d, '.github/workflows/baton-worker.yml')).toBe('mine\n');
    expect(existsSync(join(d, '.agents/workflows/fix-issue.yml'))).toBe(false);
    expect(existsSync(join(d, '.github/workflows/baton.yml'))).toBe(false);

    const forced = await init(d, ['--mode', 'actions', '--force']);
    expect(forced.code).toBe(0);
    expect(read(d, '.github/workflows/baton-worker.yml')).toContain('name: baton-worker');
    // A second run without --force names every file it would overwrite.
    const again = await init(d, ['--mode', 'actions']);
    expect(again.code).toBe(1);
    for (const f of ['.agents/workflows/fix-issue.yml', '.github/workflows/baton-worker.yml', '.github/workflows/baton.yml']) expect(again.err).toContain(f);
  });

  it('--app-token: both write jobs act with an App token; the GITHUB_TOKEN warning goes away', async () => {
    const plain = repo();
    await init(plain, ['--mode', 'actions']);
    const files = (d: string) => ({
      '.github/workflows/baton.yml': read(d, '.github/workflows/baton.yml'),
      '.agents/workflows/fix-issue.yml': read(d, '.agents/workflows/fix-issue.yml'),
    });
    const warned = tokenWarnings(files(plain));
    expect(warned.map((w) => w.step)).toEqual(['fix-issue/ci']);
    expect(warned[0]!.file).toBe('.agents/workflows/fix-issue.yml');
    expect(read(plain, '.agents/workflows/fix-issue.yml').split('\n')[warned[0]!.line - 1]).toContain('checks');

    const d = repo();
    const r = await init(d, ['--mode', 'actions', '--app-token']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/APP_ID\n {2}APP_PRIVATE_KEY/);
    expect(r.out).not.toContain('Allow GitHub Actions to create and approve pull requests');
    for (const file of ['.github/workflows/baton.yml', '.github/workflows/baton-worker.yml']) {
      const text = read(d, file);
      expect(text).toContain(`uses: ${pinnedUses(GITHUB_ACTION_PINS.appToken)}`);
      expect(text).toContain('private-key: "${{ secrets.APP_PRIVATE_KEY }}"');
      expect(text).toContain('token: "${{ steps.app-token.outputs.token }}"');
      expect(() => parse(text)).not.toThrow();
    }
    expect(tokenWarnings(files(d))).toEqual([]);
    await expect(init(repo(), ['--mode', 'app', '--app-token'])).rejects.toBeInstanceOf(UsageError);
  });

  it('refuses unknown workflows and modes; is registered in the CLI with help', async () => {
    await expect(init(repo(), ['--workflows', 'nope'])).rejects.toThrow(/not in baton's library: nope/);
    await expect(init(repo(), ['--mode', 'server'])).rejects.toThrow(/--mode must be app or actions/);
    const out: string[] = [];
    expect(await main(['init', '--help'], { out: (t) => out.push(t), err: (t) => out.push(t), cwd: process.cwd() })).toBe(0);
    expect(out.join('\n')).toContain('Usage: baton init');
    const d = repo();
    expect(await main(['init', '--repo', d, '--workflows', 'triage'], { out: () => undefined, err: () => undefined, cwd: '/' })).toBe(0);
    expect(existsSync(join(d, '.agents/workflows/triage.yml'))).toBe(true);
  });
});
