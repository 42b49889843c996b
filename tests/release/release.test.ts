// The release path, as far as this machine allows: the workflow split so that nothing the build
// runs can publish or move a tag (each job's exact permissions, no kept token, no install
// scripts, actions pinned by commit, the build's files checked against digests taken before
// any test ran), the steps in an order that publishes nothing untested, the tag checked against
// package.json, notes from the CHANGELOG, the major tag the Action is used by moved only
// forward, and the publish step itself run with --dry-run.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { HOME_REPO, PACKAGE_NAME } from '../../src/names.ts';
import { GITHUB_ACTION_PINS } from '../../src/init/action-pins.ts';
import { moveMajor } from '../../scripts/release/move-major.ts';
import { notesFor } from '../../scripts/release/notes.ts';
import { installRegistryTools } from '../../scripts/release/registry-tools.ts';
import { checkTag, packageVersion } from '../../scripts/release/version-tag.ts';

const root = join(import.meta.dirname, '..', '..');
const version = packageVersion(root);
const temps: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'baton-release-'));
  temps.push(d);
  return d;
};
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface Step { name?: string; id?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string>; 'working-directory'?: string }
interface Job { needs?: string | string[]; environment?: string; permissions?: Record<string, string>; outputs?: Record<string, string>; steps: Step[] }
interface Workflow { on: { push: { tags: string[] } }; permissions: Record<string, string>; jobs: Record<string, Job> }

const workflowText = (name: string) => readFileSync(join(root, '.github/workflows', name), 'utf8');
const WORKFLOWS = ['release.yml', 'ci.yml'];
const wf = parse(workflowText('release.yml')) as Workflow;
const jobs = wf.jobs;
const everyStep = WORKFLOWS.flatMap((f) => Object.values((parse(workflowText(f)) as Workflow).jobs).flatMap((j) => j.steps.map((s) => ({ file: f, ...s }))));
const needsOf = (job: string) => [jobs[job]!.needs ?? []].flat();
const stepIndex = (job: string, needle: string) => {
  const i = jobs[job]!.steps.findIndex((s) => s.run?.includes(needle) || s.uses?.startsWith(needle));
  expect(i, `job ${job} has a step with ${needle}`).toBeGreaterThanOrEqual(0);
  return i;
};

/** A multi-line `name<<DELIM … DELIM` or `name=value` GITHUB_OUTPUT file, read as GitHub reads it. */
function readOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([\w-]+)<<(\S+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i]!.includes('=')) out[lines[i]!.split('=')[0]!] = lines[i]!.slice(lines[i]!.indexOf('=') + 1);
  }
  return out;
}

describe('the release workflow: who holds what', () => {
  it('runs on version tags; no job gets a permission it does not list', () => {
    expect(wf.on.push.tags).toContain('v[0-9]+.[0-9]+.[0-9]+');
    expect(wf.permissions).toEqual({});
  });

  it('gives each job exactly its permissions: the build reads, attest attests, publish mints an OIDC token, release writes', () => {
    expect(Object.fromEntries(Object.entries(jobs).map(([name, job]) => [name, job.permissions]))).toEqual({
      build: { contents: 'read' },
      attest: { 'id-token': 'write', attestations: 'write' },
      publish: { 'id-token': 'write' },
      release: { contents: 'write' },
    });
  });

  it('only publish can mint a token npm accepts: it alone is in the npm environment, and attest runs no repository code', () => {
    const oidc = Object.keys(jobs).filter((j) => jobs[j]!.permissions?.['id-token'] === 'write');
    expect(oidc.sort()).toEqual(['attest', 'publish']);
    expect(Object.keys(jobs).filter((j) => jobs[j]!.environment)).toEqual(['publish']);
    expect(jobs.publish!.environment).toBe('npm');
    // attest: no checkout, no npm, no node; its one command checks the digests.
    const attest = jobs.attest!.steps;
    expect(attest.filter((s) => s.uses).map((s) => s.uses!.split('@')[0])).toEqual(['actions/download-artifact', 'actions/attest-build-provenance']);
    expect(attest.filter((s) => s.run).map((s) => s.run)).toEqual([expect.stringMatching(/^printf '%s\\n' "\$SHA256SUMS" \| sha256sum --check --strict$/)]);
    // publish: no checkout; it runs npm only to publish the tarball.
    expect(jobs.publish!.steps.some((s) => s.uses?.startsWith('actions/checkout'))).toBe(false);
  });

  it('only the release job can write to the repository, and it installs nothing: move-major runs on Node alone', () => {
    expect(Object.keys(jobs).filter((j) => jobs[j]!.permissions?.contents === 'write')).toEqual(['release']);
    const runs = jobs.release!.steps.flatMap((s) => (s.run ? [s.run] : []));
    expect(runs.filter((r) => /\bnpm\b|\bnpx\b|\btsx\b/.test(r))).toEqual([]);
    expect(runs).toContain('node scripts/release/move-major.ts "$GITHUB_REF_NAME"');
    expect(jobs.release!.steps.find((s) => s.uses?.startsWith('actions/setup-node'))?.with?.['node-version']).toBe(24);
    // Node strips the types itself: what move-major.ts imports must be Node's own modules or these relative files.
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, spec] of readFileSync(join(root, 'scripts/release', file), 'utf8').matchAll(/^(?:import|export)\s(?:[^'"]*\sfrom\s)?['"]([^'"]+)['"]/gm)) {
        if (spec!.startsWith('./')) visit(spec!.slice(2));
        else expect(spec, `${file} imports ${spec}`).toMatch(/^node:/);
      }
    };
    visit('move-major.ts');
    expect([...seen].sort()).toEqual(['move-major.ts', 'version-tag.ts']);
  });

  it('no checkout keeps its token in .git/config (release and CI)', () => {
    const checkouts = everyStep.filter((s) => s.uses?.startsWith('actions/checkout'));
    expect(checkouts.length).toBe(3);
    for (const s of checkouts) expect(s.with?.['persist-credentials'], `${s.file}: ${s.uses}`).toBe(false);
  });

  it('the major tag is pushed with the token handed to that one step, through the environment', () => {
    const move = jobs.release!.steps.find((s) => s.run?.includes('move-major.ts'))!;
    const others = Object.values(jobs).flatMap((j) => j.steps).filter((s) => s !== move);
    expect(others.filter((s) => Object.keys(s.env ?? {}).some((k) => k.startsWith('GIT_CONFIG')))).toEqual([]);
    // What git does with that environment when it pushes to github.com: asks the helper, which answers with GH_TOKEN.
    const r = spawnSync('git', ['credential', 'fill'], {
      input: 'protocol=https\nhost=github.com\npath=baton-dev/baton.git\n\n',
      encoding: 'utf8',
      env: { PATH: process.env.PATH, HOME: temp(), GIT_TERMINAL_PROMPT: '0', ...move.env, GH_TOKEN: 'the-job-token' },
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('username=x-access-token\npassword=the-job-token\n');
  });
});

describe('the release workflow: what runs', () => {
  it('pins every action of release and CI to a commit, with its version in a comment', () => {
    const pins = new Map<string, string>();
    for (const file of WORKFLOWS) {
      for (const line of workflowText(file).split('\n').filter((l) => /^\s*(-\s+)?uses:/.test(l))) {
        expect(`${file}: ${line.trim()}`).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
        const [, action, sha] = /uses:\s*(\S+?)@(\S+)/.exec(line)!;
        expect(pins.get(action!) ?? sha, `${action} is pinned to one commit everywhere`).toBe(sha);
        pins.set(action!, sha!);
      }
    }
    expect([...pins.keys()].sort()).toEqual(['actions/attest-build-provenance', 'actions/checkout', 'actions/download-artifact', 'actions/setup-node', 'actions/upload-artifact']);
    // One pin per action across the project: what baton's own workflows run is what `baton init` writes for users.
    for (const pin of Object.values(GITHUB_ACTION_PINS)) if (pins.has(pin.repo)) expect(pins.get(pin.repo), pin.repo).toBe(pin.commit);
  });

  it('installs only what a lockfile names, without install scripts (release and CI)', () => {
    const runs = everyStep.flatMap((s) => (s.run ? [`${s.file}: ${s.run}`] : []));
    const ci = runs.filter((r) => /\bnpm ci\b/.test(r));
    expect(ci.length).toBe(2);
    for (const r of ci) expect(r).toMatch(/npm ci --ignore-scripts/);
    expect(runs.filter((r) => /\bnpm (install|i|add)\b|\bnpx (-y|--yes)\b|\byarn\b|\bpnpm\b/.test(r))).toEqual([]);
    for (const r of runs.filter((r) => /\bnpm (pack|publish)\b/.test(r))) expect(r).toMatch(/--ignore-scripts/);
  });

  it('checks the tag, reads the notes, typechecks and builds, stamps the Action pin, packs and digests, then tests and runs the registry check on the tarball', () => {
    const at = (needle: string) => stepIndex('build', needle);
    const pack = at('npm pack');
    expect(jobs.build!.steps[pack]!.id).toBe('pack');
    expect(Math.max(at('npm ci --ignore-scripts'), at('scripts/release/check-tag.ts'), at('scripts/release/notes.ts'), at('npm run typecheck'), at('npm run build'))).toBeLessThan(pack);
    // The package ships the pin `baton init` writes for baton's Action: stamped after the checks, before packing.
    expect(at('scripts/release/check-tag.ts')).toBeLessThan(at('scripts/release/stamp-pin.ts'));
    expect(at('scripts/release/stamp-pin.ts')).toBeLessThan(pack);
    // Packed, digested and uploaded before any test code runs.
    expect(pack).toBeLessThan(at('actions/upload-artifact'));
    expect(at('actions/upload-artifact')).toBeLessThan(at('npm test'));
    expect(at('npm test')).toBeLessThan(at('npm run release:registry-check'));
    expect(jobs.build!.steps[at('npm run release:registry-check')]!.run).toContain('-- --tarball "$RUNNER_TEMP/release/$TARBALL"');
    expect(jobs.build!.outputs).toMatchObject({ tarball: '${{ steps.pack.outputs.tarball }}', sha256sums: '${{ steps.pack.outputs.sha256sums }}' });
  });

  it('attests, then publishes, then releases: nothing is published when a job before fails', () => {
    expect(needsOf('attest')).toEqual(['build']);
    expect(needsOf('publish').sort()).toEqual(['attest', 'build']);
    expect(needsOf('release').sort()).toEqual(['build', 'publish']);
    const attest = jobs.attest!.steps.find((s) => s.uses?.startsWith('actions/attest-build-provenance'))!;
    expect(String(attest.with?.['subject-path']).trim().split('\n')).toEqual(['release/${{ needs.build.outputs.tarball }}', 'release/action.js']);
  });

  it('every job that takes the build\'s files checks them against the digests first', () => {
    const takers = Object.keys(jobs).filter((j) => jobs[j]!.steps.some((s) => s.uses?.startsWith('actions/download-artifact')));
    expect(takers.sort()).toEqual(['attest', 'publish', 'release']);
    for (const j of takers) {
      const steps = jobs[j]!.steps;
      const download = steps.findIndex((s) => s.uses?.startsWith('actions/download-artifact'));
      const check = steps[download + 1]!;
      expect(check.run, `${j}: the step after the download`).toMatch(/sha256sum --check --strict/);
      expect(check.env?.SHA256SUMS).toBe('${{ needs.build.outputs.sha256sums }}');
      expect(check['working-directory']).toBe(steps[download]!.with?.path);
    }
  });

  it('a release file changed after the build digested it is refused by the digest check', () => {
    // The build's pack step, run on a small package as the runner runs it.
    const workspace = temp();
    writeFileSync(join(workspace, 'package.json'), JSON.stringify({ name: 'pack-me', version: '1.0.0', files: ['dist'] }));
    mkdirSync(join(workspace, 'dist'));
    writeFileSync(join(workspace, 'dist/action.js'), 'console.log("the action");\n');
    const release = temp();
    writeFileSync(join(release, 'notes.md'), '- notes\n');
    const outputs = join(temp(), 'outputs');
    writeFileSync(outputs, '');
    const pack = jobs.build!.steps.find((s) => s.id === 'pack')!;
    execFileSync('bash', ['-e', '-c', pack.run!], { cwd: release, env: { ...process.env, GITHUB_WORKSPACE: workspace, GITHUB_OUTPUT: outputs }, stdio: 'pipe' });
    const out = readOutputs(readFileSync(outputs, 'utf8'));
    expect(out.tarball).toBe('pack-me-1.0.0.tgz');
    expect(out.sha256sums!.split('\n').map((l) => l.split(/\s+/)[1])).toEqual(['pack-me-1.0.0.tgz', 'action.js', 'notes.md']);

    const checks = Object.entries(jobs).flatMap(([name, job]) => job.steps.filter((s) => s.run?.includes('sha256sum --check')).map((s) => [name, s.run!] as const));
    expect(checks.map(([name]) => name)).toEqual(['attest', 'publish', 'release']);
    const verify = (run: string) => spawnSync('bash', ['-e', '-c', run], { cwd: release, env: { ...process.env, SHA256SUMS: out.sha256sums }, encoding: 'utf8' });
    for (const [name, run] of checks) expect(verify(run).status, name).toBe(0);
    writeFileSync(join(release, 'action.js'), 'console.log("another action");\n');
    for (const [name, run] of checks) {
      const r = verify(run);
      expect(r.status, `${name} takes a changed action.js`).not.toBe(0);
      expect(r.stdout).toContain('action.js: FAILED');
    }
  });

  it('publishes the tarball the build made, with provenance, on the Node.js the runners use (run here with --dry-run)', () => {
    const node = jobs.publish!.steps.find((s) => s.uses?.startsWith('actions/setup-node'));
    expect(node?.with?.['node-version']).toBe(24);
    expect(node?.with?.['registry-url']).toBe('https://registry.npmjs.org');
    const step = jobs.publish!.steps.find((s) => s.run?.includes('npm publish'))!;
    expect(step.env).toMatchObject({ TARBALL: '${{ needs.build.outputs.tarball }}', NPM_TAG: '${{ needs.build.outputs.npm-tag }}' });
    // The job's working directory: the artifact downloaded into release/.
    const cwd = temp();
    mkdirSync(join(cwd, 'release'));
    const tarball = execFileSync('npm', ['pack', root, '--ignore-scripts', '--pack-destination', join(cwd, 'release')], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').at(-1)!;
    const r = spawnSync('bash', ['-e', '-c', step.run!], {
      cwd,
      encoding: 'utf8',
      // No token here: npm's dry run says it would need one and goes on.
      env: { ...process.env, TARBALL: tarball, NPM_TAG: 'latest', NODE_AUTH_TOKEN: '', npm_config_dry_run: 'true' },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout + r.stderr;
    expect(out).toContain(`+ ${PACKAGE_NAME}@${version}`);
    expect(out).toMatch(/with tag latest and public access \(dry-run\)/);
    expect(out).toContain('action.yml');
    expect(out).not.toMatch(/\btests\//);
  }, 120_000);

  it('package.json names the repository npm checks the provenance against', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { repository?: { url?: string } };
    expect(pkg.repository?.url).toBe(`git+https://github.com/${HOME_REPO}.git`);
  });

  it('drafts the GitHub release with the tarball and the Action bundle, publishes it, then moves the major tag', () => {
    const at = (needle: string) => stepIndex('release', needle);
    const create = jobs.release!.steps[at('gh release create')]!.run!;
    expect(create).toMatch(/--draft --verify-tag/);
    expect(create).toContain('--notes-file "$RUNNER_TEMP/release/notes.md"');
    expect(create).toContain('"$RUNNER_TEMP/release/$TARBALL" "$RUNNER_TEMP/release/action.js"');
    expect(at('gh release create')).toBeLessThan(at('gh release edit "$GITHUB_REF_NAME" --draft=false'));
    expect(at('gh release edit')).toBeLessThan(at('scripts/release/move-major.ts'));
  });
});

describe('the registry check\'s tools', () => {
  const tools = join(root, 'scripts/release/registry-check');
  const pkg = JSON.parse(readFileSync(join(tools, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; overrides?: Record<string, string> };
  const lock = JSON.parse(readFileSync(join(tools, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; integrity?: string; dependencies?: Record<string, string> }> };

  it('come from a committed lockfile that pins verdaccio and names every package by its integrity hash', () => {
    expect(pkg.dependencies).toEqual({ verdaccio: '6.8.0' });
    expect(lock.packages['']!.dependencies).toEqual(pkg.dependencies);
    expect(lock.packages['node_modules/verdaccio']!.version).toBe('6.8.0');
    expect(lock.packages['node_modules/node-fetch']!.version).toBe(pkg.overrides!['node-fetch']);
    const entries = Object.entries(lock.packages).filter(([path]) => path);
    expect(entries.length).toBeGreaterThan(300);
    expect(entries.filter(([, p]) => !/^sha512-/.test(p.integrity ?? '')).map(([path]) => path)).toEqual([]);
  });

  it('install without running a dependency\'s install script, and only what the lockfile says', () => {
    // A dependency whose postinstall would leave a file behind, as a tarball (npm installs it like one from a registry).
    const evil = temp();
    writeFileSync(join(evil, 'package.json'), JSON.stringify({ name: 'evil', version: '1.0.0', scripts: { postinstall: "node -e \"require('fs').writeFileSync('../../postinstall-ran', '')\"" } }));
    const tarball = join(evil, execFileSync('npm', ['pack', '--ignore-scripts'], { cwd: evil, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').at(-1)!);
    const from = temp();
    writeFileSync(join(from, 'package.json'), JSON.stringify({ private: true, dependencies: { evil: `file:${tarball}` } }));
    execFileSync('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: from, stdio: 'ignore' });
    const into = temp();
    installRegistryTools(into, from);
    expect(existsSync(join(into, 'node_modules/evil/package.json'))).toBe(true);
    expect(existsSync(join(into, 'postinstall-ran'))).toBe(false);

    // A package.json the lockfile does not match: npm ci refuses it (npm install would rewrite the lockfile and go on).
    const other = temp();
    writeFileSync(join(other, 'package.json'), JSON.stringify({ name: 'other', version: '1.0.0' }));
    const otherTarball = join(other, execFileSync('npm', ['pack'], { cwd: other, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').at(-1)!);
    writeFileSync(join(from, 'package.json'), JSON.stringify({ private: true, dependencies: { evil: `file:${tarball}`, other: `file:${otherTarball}` } }));
    expect(() => installRegistryTools(temp(), from)).toThrow();
  }, 60_000);
});

describe('release tags', () => {
  it('accepts the tag of the version in package.json and names the major tag', () => {
    expect(checkTag(`v${version}`, root)).toMatchObject({ version, major: `v${version.split('.')[0]}` });
  });

  it('refuses a tag that is not the package version, saying how to fix it', () => {
    const r = spawnSync('npx', ['tsx', 'scripts/release/check-tag.ts', 'v9.9.9'], { cwd: root, encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`release refused: tag v9.9.9 does not match package.json version ${version}`);
    expect(() => checkTag('1.2.0', root)).toThrow(/not a release tag/);
  });

  it('publishes a pre-release under the `next` dist-tag, a stable one under `latest`', () => {
    const d = temp();
    writeFileSync(join(d, 'package.json'), JSON.stringify({ version: '1.3.0-rc.1' }));
    const out = (tag: string) => spawnSync('npx', ['tsx', join(root, 'scripts/release/check-tag.ts'), tag], { cwd: root, encoding: 'utf8' });
    expect(out(`v${version}`).stdout).toContain('npm-tag=latest');
    expect(checkTag('v1.3.0-rc.1', d).prerelease).toBe(true);
  });
});

describe('release notes', () => {
  const changelog = readFileSync(join(root, 'CHANGELOG.md'), 'utf8');

  it('the version in package.json has its section in CHANGELOG.md', () => {
    expect(notesFor(changelog, version)).toMatch(/\S/);
  });

  it('a version without a section, or with an empty one, has no notes (and is not released)', () => {
    expect(notesFor(changelog, '99.0.0')).toBeNull();
    expect(notesFor('## [2.0.0]\n\n## [1.0.0]\n- a\n', '2.0.0')).toBeNull();
    expect(notesFor('## [2.0.0]\n- b\n## [1.0.0]\n- a\n', '2.0.0')).toBe('- b');
  });
});

describe('moving the major tag', () => {
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
  function repoWithRemote() {
    const remote = temp();
    git(remote, 'init', '--bare', '-q');
    const work = temp();
    git(work, 'init', '-q', '-b', 'main');
    git(work, 'remote', 'add', 'origin', remote);
    const commit = (tag: string) => {
      git(work, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', tag);
      git(work, 'tag', tag);
      return git(work, 'rev-parse', 'HEAD');
    };
    const remoteTag = (t: string) => spawnSync('git', ['rev-parse', '--verify', '-q', `refs/tags/${t}`], { cwd: remote, encoding: 'utf8' }).stdout.trim() || null;
    return { work, commit, remoteTag };
  }

  it('moves v1 to a newer stable release and pushes it', () => {
    const r = repoWithRemote();
    r.commit('v1.0.0');
    expect(moveMajor(r.work, 'v1.0.0')).toMatch(/^v1 moved to v1.0.0/);
    const c = r.commit('v1.1.0');
    moveMajor(r.work, 'v1.1.0');
    expect(r.remoteTag('v1')).toBe(c);
  });

  it('leaves v1 on the newest release for a patch of an older minor, a pre-release, or another major', () => {
    const r = repoWithRemote();
    r.commit('v1.0.0');
    const newest = r.commit('v1.1.0');
    moveMajor(r.work, 'v1.1.0');
    r.commit('v1.0.1');
    expect(moveMajor(r.work, 'v1.0.1')).toBe('v1.1.0 is newer than v1.0.1: v1 stays on the newest release');
    r.commit('v1.2.0-rc.1');
    expect(moveMajor(r.work, 'v1.2.0-rc.1')).toMatch(/pre-release: v1 stays/);
    const two = r.commit('v2.0.0');
    moveMajor(r.work, 'v2.0.0');
    expect(r.remoteTag('v1')).toBe(newest);
    expect(r.remoteTag('v2')).toBe(two);
  });
});
