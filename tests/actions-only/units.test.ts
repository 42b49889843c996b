// The pieces of Actions-only mode on their own: concurrency keys from payloads, the local
// artifact adapter, the GITHUB_TOKEN warning as an annotation of the bundled validate mode.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readResultZip, type ResultBundle } from '../../src/agents/result.ts';
import { attemptOf } from '../../src/action/modes/apply.ts';
import { concurrencyKey } from '../../src/action/route-key.ts';
import { withLocalArtifact, zipBundle } from '../../src/action/local-artifact.ts';
import type { GitHubClient } from '../../src/hosts/github/client.ts';
import { tokenWarnings, tokenWarningsIn } from '../../src/manifest/warn-token.ts';
import { PROJECT_ROOT } from './harness.ts';
import { GITHUB_ACTION_PINS, pinnedUses } from '../../src/init/action-pins.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('concurrency keys: every event of a run maps to the number of its thread', () => {
  it('a fork\'s pull request is pull_request_target\'s, one of this repository pull_request\'s: never both', () => {
    const repository = { full_name: 'acme/widgets' };
    const fork = { number: 7, head: { ref: 'patch-1', repo: { full_name: 'mallory/widgets' } } };
    const own = { number: 8, head: { ref: 'feature', repo: { full_name: 'acme/widgets' } } };
    expect(concurrencyKey('pull_request_target', { action: 'opened', repository, pull_request: fork })).toBe('7');
    expect(concurrencyKey('pull_request', { action: 'opened', repository, pull_request: fork })).toBeUndefined();
    expect(concurrencyKey('pull_request_target', { action: 'opened', repository, pull_request: own })).toBeUndefined();
    expect(concurrencyKey('pull_request', { action: 'opened', repository, pull_request: own })).toBe('8');
    // A deleted fork (head.repo null) is a fork; baton's own types on a fork's pull request stay pull_request's.
    expect(concurrencyKey('pull_request_target', { action: 'synchronize', repository, pull_request: { number: 9, head: { ref: 'x', repo: null } } })).toBe('9');
    expect(concurrencyKey('pull_request', { action: 'closed', repository, pull_request: fork })).toBe('7');
  });

  it('reads issues, comments, reviews, checks, statuses and worker dispatches', () => {
    expect(concurrencyKey('issues', { issue: { number: 42 } })).toBe('42');
    expect(concurrencyKey('issue_comment', { issue: { number: 42 } })).toBe('42');
    expect(concurrencyKey('schedule', { schedule: '*/5 * * * *' })).toBe('sweep');
    // A comment on baton's PR #50 belongs to the run started on issue #42.
    expect(concurrencyKey('issue_comment', { issue: { number: 50, pull_request: {}, body: 'x\n\nOpened by baton run `fix-42-1`.' } })).toBe('42');
    expect(concurrencyKey('issue_comment', { issue: { number: 50, pull_request: {}, body: 'someone else' } })).toBe('50');
    expect(concurrencyKey('pull_request_review', { pull_request: { number: 50, head: { ref: 'baton/fix-42-1' } } })).toBe('42');
    expect(concurrencyKey('pull_request_review', { pull_request: { number: 50, head: { ref: 'feature' } } })).toBeUndefined();
    expect(concurrencyKey('check_suite', { check_suite: { head_branch: 'baton/fix-42-1' } })).toBe('42');
    expect(concurrencyKey('check_run', { check_run: { check_suite: { head_branch: 'baton/fix-42-1' } } })).toBe('42');
    // CI on a step branch is nobody's business (checks are read on the run branch): the run job is skipped.
    expect(concurrencyKey('check_run', { check_run: { check_suite: { head_branch: 'baton/steps/fix-42-1/impl' } } })).toBeUndefined();
    expect(concurrencyKey('status', { branches: [{ name: 'main' }, { name: 'baton/fix-42-1' }] })).toBe('42');
    expect(concurrencyKey('status', { branches: [{ name: 'main' }] })).toBeUndefined();
    // A status lists the branches containing its commit: the run is the one whose head it is.
    const at = (name: string, sha: string) => ({ name, commit: { sha } });
    expect(concurrencyKey('status', { sha: 'c2', branches: [at('baton/fix-7-1', 'c9'), at('baton/fix-42-1', 'c2')] })).toBe('42');
    expect(concurrencyKey('status', { sha: 'c2', branches: [at('baton/fix-7-1', 'c9'), at('main', 'c5')] })).toBeUndefined();
    expect(concurrencyKey('workflow_dispatch', { inputs: { run: 'fix-issue-7-2' } })).toBe('7');
    expect(concurrencyKey('push', {})).toBeUndefined();
  });

  it('names the attempt of a worker run from its inputs', () => {
    expect(attemptOf({ run: 'fix-42-1', step: 'implement[2]', attempt: '3' })).toEqual({ runId: 'fix-42-1', step: 'implement', slot: '2', attempt: 3 });
    expect(() => attemptOf({ run: 'nope', step: 'x', attempt: '1' })).toThrow(/name no baton step attempt/);
  });
});

describe('the apply job serves its downloaded artifact to the App code', () => {
  const bundle: ResultBundle = {
    result: { version: 1, run: 'fix-42-1', step: 'impl', slot: '0', attempt: 1, status: 'succeeded', outputs: { ok: true }, error: null, usage: {}, base: 'a'.repeat(40), changes: [{ path: 'a.txt', status: 'added', mode: '100644' }], backend: 'codex', durationMs: 1 },
    files: new Map([['a.txt', new TextEncoder().encode('hi\n')]]),
    transcript: 'done\n',
  };

  it('answers the artifact list and download of its own run, and passes the rest on', async () => {
    const seen: string[] = [];
    const real = { request: async (route: string) => (seen.push(route), { data: { artifacts: [] } }) } as unknown as GitHubClient;
    const local = withLocalArtifact(real, 7, bundle);
    const list = await local.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { owner: 'o', repo: 'r', run_id: 7 });
    expect(list.data.artifacts.map((a) => a.name)).toEqual(['baton-result']);
    const zip = await local.request('GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}', { owner: 'o', repo: 'r', artifact_id: list.data.artifacts[0]!.id, archive_format: 'zip' });
    const back = readResultZip(new Uint8Array(zip.data as ArrayBuffer));
    expect(back.result).toEqual(bundle.result);
    expect(new TextDecoder().decode(back.files.get('a.txt'))).toBe('hi\n');
    await local.request('GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', { owner: 'o', repo: 'r', run_id: 8 });
    expect(seen).toEqual(['GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts']);
    expect(readResultZip(zipBundle(bundle)).transcript).toBe('done\n');
  });
});

describe('the GITHUB_TOKEN warning', () => {
  const manifest = 'name: fix\nsteps:\n  - id: impl\n    run: make\n  - id: ci\n    checks: { names: [test] }\n  - id: ci2\n    checks: { names: [lint], workflow: ci.yml }\n';

  it('warns for checks steps without workflow: only when Actions-only mode uses GITHUB_TOKEN', () => {
    const files = { '.agents/workflows/fix.yml': manifest, '.github/workflows/baton.yml': 'name: baton\n' };
    expect(tokenWarnings(files)).toEqual([expect.objectContaining({ file: '.agents/workflows/fix.yml', line: 6, column: 5, step: 'fix/ci' })]);
    expect(tokenWarnings({ '.agents/workflows/fix.yml': manifest })).toEqual([]); // App mode
    expect(tokenWarnings({ ...files, '.github/workflows/baton.yml': '- uses: actions/create-github-app-token@v2\n' })).toEqual([]);
  });

  it('warns for a checks.workflow that baton.yml never hears finish (no workflow_run naming it), in both token modes', () => {
    const ci = 'name: CI\non: workflow_dispatch\njobs: { lint: { runs-on: ubuntu-latest, steps: [ { run: "true" } ] } }\n';
    const appToken = '- uses: actions/create-github-app-token@v2\n';
    const files = { '.agents/workflows/fix.yml': manifest, '.github/workflows/baton.yml': appToken, '.github/workflows/ci.yml': ci };
    const warned = tokenWarnings(files);
    expect(warned).toEqual([expect.objectContaining({ file: '.agents/workflows/fix.yml', line: 8, column: 5, step: 'fix/ci2', title: 'baton never hears CI finish' })]);
    expect(warned[0]!.message).toContain('run `baton update`: it adds "CI" to `workflow_run.workflows`');
    const listening = '# uses actions/create-github-app-token@v2\non:\n  status:\n  workflow_run: { workflows: [CI], types: [completed] }\njobs: {}\n';
    expect(tokenWarnings({ ...files, '.github/workflows/baton.yml': listening })).toEqual([]);
    // On disk too (what `baton doctor` and the validate mode read): the CI workflow's name comes from its file.
    const ws = mkdtempSync(join(tmpdir(), 'baton-warn-ci-'));
    dirs.push(ws);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(ws, path, '..'), { recursive: true });
      writeFileSync(join(ws, path), text);
    }
    expect(tokenWarningsIn(ws).map((w) => w.step)).toEqual(['fix/ci2']);
  });

  it('is a warning annotation of the bundled validate mode, on the file and line', () => {
    const ws = mkdtempSync(join(tmpdir(), 'baton-validate-token-'));
    dirs.push(ws);
    mkdirSync(join(ws, '.agents/workflows'), { recursive: true });
    mkdirSync(join(ws, '.github/workflows'), { recursive: true });
    writeFileSync(join(ws, '.agents/workflows/fix.yml'), manifest);
    writeFileSync(join(ws, '.github/workflows/baton.yml'), 'name: baton\n');
    const out = join(ws, 'out.txt');
    writeFileSync(out, '');
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist/action.js')], {
      cwd: ws,
      env: { PATH: process.env.PATH, GITHUB_WORKSPACE: ws, GITHUB_OUTPUT: out, INPUT_MODE: 'validate', INPUT_PATH: '.agents/workflows' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/::warning title=CI never starts on baton run branches,file=\.agents\/workflows\/fix\.yml,line=6,col=5::fix\/ci waits for CI/);
    expect(r.stdout).toContain('1 workflow file valid (1 warning)');
  });

  it('the bundled validate mode warns, on the file and line, about each uses: of baton\'s workflows that is not a commit SHA', () => {
    const ws = mkdtempSync(join(tmpdir(), 'baton-validate-pins-'));
    dirs.push(ws);
    mkdirSync(join(ws, '.agents/workflows'), { recursive: true });
    mkdirSync(join(ws, '.github/workflows'), { recursive: true });
    writeFileSync(join(ws, '.agents/workflows/hello.yml'), 'name: hello\nsteps:\n  - id: a\n    run: "true"\n');
    const pinned = pinnedUses(GITHUB_ACTION_PINS.checkout);
    writeFileSync(
      join(ws, '.github/workflows/baton-worker.yml'),
      `jobs:\n  agent:\n    steps:\n      - uses: ${pinned}\n      - id: baton\n        uses: baton-dev/baton@v1\n      - uses: actions/upload-artifact@v4\n      - uses: ./local-action\n`,
    );
    // A workflow of the user's own, not baton's: not baton's to judge.
    writeFileSync(join(ws, '.github/workflows/ci.yml'), 'jobs:\n  t:\n    steps:\n      - uses: actions/checkout@v5\n');
    const out = join(ws, 'out.txt');
    writeFileSync(out, '');
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'dist/action.js')], {
      cwd: ws,
      env: { PATH: process.env.PATH, GITHUB_WORKSPACE: ws, GITHUB_OUTPUT: out, INPUT_MODE: 'validate', INPUT_PATH: '.agents/workflows' },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const warnings = r.stdout.split('\n').filter((l) => l.startsWith('::warning title=action not pinned to a commit'));
    expect(warnings.map((l) => /file=([^,]+),line=(\d+),col=(\d+)/.exec(l)!.slice(1).join(':'))).toEqual([
      '.github/workflows/baton-worker.yml:6:15',
      '.github/workflows/baton-worker.yml:7:15',
    ]);
    expect(warnings[0]).toContain('`uses: baton-dev/baton@v1` is not pinned to a full commit SHA');
    expect(r.stdout).toContain('1 workflow file valid (2 warnings)');
  });
});
