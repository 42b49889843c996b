// The runner on its own, against a real bare repository and a fake host (no HTTP).
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from './records.ts';
import { latestJobs } from './records.ts';
import { ActionsRunner } from './runner.ts';
import { ACTOR, fakeHost, tempRepo, type FakeHost, type TempRepo } from './testing.ts';
import { unzipFiles } from './zip.ts';

// An absolute loader path: the action runs with the workspace as cwd, where `tsx` does not resolve.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const REPORT_ACTION = fileURLToPath(new URL('./fixtures/report-action', import.meta.url));

const WORKFLOWS: Record<string, string> = {
  'README.md': '# widgets\n',
  '.github/workflows/steps.yml': `
name: steps
run-name: "steps \${{ inputs.label }}"
on:
  workflow_dispatch:
    inputs:
      label: { required: true }
env:
  LEVEL: workflow
jobs:
  main:
    runs-on: ubuntu-latest
    env:
      JOB_LEVEL: job-\${{ env.LEVEL }}
    outputs:
      answer: \${{ steps.produce.outputs.answer }}
    steps:
      - uses: actions/checkout@v5
      - name: Write a file
        id: produce
        run: |
          test -f README.md
          echo "made by \${{ inputs.label }}" > made.txt
          echo "answer=42" >> "$GITHUB_OUTPUT"
          { echo "multi<<END"; echo "a"; echo "b"; echo "END"; } >> "$GITHUB_OUTPUT"
          echo "EXPORTED=from-env-file" >> "$GITHUB_ENV"
      - name: See earlier outputs and env
        env:
          STEP_LEVEL: step
        run: |
          echo "multi=[\${{ steps.produce.outputs.multi }}]"
          echo "levels=$LEVEL/$JOB_LEVEL/$STEP_LEVEL/$EXPORTED"
      - id: report
        uses: acme/report@v1
        with:
          message: hello \${{ inputs.label }}
      - name: Skipped while all is well
        if: failure()
        run: echo never
      - uses: actions/upload-artifact@v4
        with:
          name: result
          path: |
            made.txt
            README.md
  after:
    needs: main
    runs-on: ubuntu-latest
    steps:
      - run: echo "got \${{ needs.main.outputs.answer }} from \${{ needs.main.result }}"
      - uses: actions/download-artifact@v4
        with: { name: result, path: dl }
      - run: cat dl/made.txt
`,
  '.github/workflows/global-npm.yml': `
on: workflow_dispatch
jobs:
  install:
    runs-on: ubuntu-latest
    outputs:
      prefix: \${{ steps.where.outputs.prefix }}
    steps:
      - id: where
        run: echo "prefix=$(npm prefix -g)" >> "$GITHUB_OUTPUT"
      - run: npm install -g left-pad
`,
  '.github/workflows/fails.yml': `
on: workflow_dispatch
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - id: soft
        run: exit 3
        continue-on-error: true
      - run: echo "soft was \${{ steps.soft.outcome }}/\${{ steps.soft.conclusion }}"
      - name: Breaks
        run: exit 1
      - name: Not run after a failure
        run: echo never
      - name: Cleanup
        if: always()
        run: echo cleanup ran
      - name: On failure
        if: failure()
        run: echo failure seen
  b:
    needs: a
    runs-on: ubuntu-latest
    steps:
      - run: echo never
  c:
    needs: a
    if: always()
    runs-on: ubuntu-latest
    steps:
      - run: echo "a was \${{ needs.a.result }}"
`,
  '.github/workflows/unsupported.yml': `
on: workflow_dispatch
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo first
      - name: Use something unknown
        uses: someone/unknown-action@v3
  b:
    runs-on: ubuntu-latest
    services: { db: { image: postgres } }
    steps:
      - run: echo never
  c:
    runs-on: ubuntu-latest
    steps:
      - name: Bad expression
        run: echo \${{ nope.x }}
`,
  '.github/workflows/slow.yml': `
on:
  workflow_dispatch:
    inputs:
      seconds: { default: "0.3" }
concurrency: { group: slow }
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: sleep \${{ inputs.seconds }}
`,
  '.github/workflows/timeout.yml': `
on: workflow_dispatch
jobs:
  step-timeout:
    runs-on: ubuntu-latest
    steps:
      - timeout-minutes: 0.005
        run: sleep 5
      - if: always()
        run: echo after step timeout
  job-timeout:
    runs-on: ubuntu-latest
    timeout-minutes: 0.02
    steps:
      - run: mkdir -p out && echo partial > out/work.txt && sleep 5
      - if: always()
        uses: actions/upload-artifact@v4
        with: { name: partial, path: out }
`,
  '.github/workflows/job-timeout.yml': `
on: workflow_dispatch
jobs:
  slow:
    runs-on: ubuntu-latest
    timeout-minutes: 0.01
    steps:
      - run: sleep 5
`,
  '.github/workflows/perms.yml': `
on: workflow_dispatch
permissions: { contents: read }
jobs:
  read:
    runs-on: ubuntu-latest
    steps: [ { run: "true" } ]
  write:
    runs-on: ubuntu-latest
    permissions: { contents: write, actions: read }
    steps: [ { run: "true" } ]
`,
  '.github/workflows/pinned.yml': `
on:
  workflow_dispatch:
    inputs:
      base: { required: true }
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v5
        with: { ref: "\${{ inputs.base }}", fetch-depth: 0, path: src }
      - working-directory: src
        run: |
          echo "head=$(git rev-parse HEAD) branch=$(git rev-parse --abbrev-ref HEAD) commits=$(git rev-list --count HEAD)"
          cat version.txt
      - uses: ./src/.github/actions/hello
        with: { who: local }
`,
  'version.txt': 'v1\n',
  '.github/actions/hello/action.yml': 'name: hello\ninputs:\n  who: { required: true }\nruns: { using: node24, main: main.cjs }\n',
  '.github/actions/hello/main.cjs': 'console.log(`hello ${process.env.INPUT_WHO} from ${__dirname.endsWith("hello")}`);\n',
  '.github/workflows/replace.yml': `
on: workflow_dispatch
concurrency: { group: replace, cancel-in-progress: true }
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: sleep 10
`,
  '.github/workflows/typescript.yml': `
on: workflow_dispatch
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - id: ts
        uses: acme/ts@v1
        with: { name: source }
      - run: echo "\${{ steps.ts.outputs.greeting }}"
`,
  '.github/workflows/hidden.yml': `
on: workflow_dispatch
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: mkdir -p out/.config out/src .hidden-out && echo a > out/.gitignore && echo b > out/.config/tool.json && echo c > out/src/main.ts && echo d > .hidden-out/x.txt
      - uses: actions/upload-artifact@v4
        with: { name: default, path: out }
      - uses: actions/upload-artifact@v4
        with: { name: with-hidden, path: out, include-hidden-files: true }
      - uses: actions/upload-artifact@v4
        with: { name: hidden-root, path: .hidden-out, if-no-files-found: error }
`,
  '.github/workflows/runtime-tokens.yml': `
name: runtime-tokens
on: workflow_dispatch
jobs:
  plain:
    runs-on: ubuntu-latest
    outputs:
      action: \${{ steps.report.outputs.seen }}
      shell: \${{ steps.shell.outputs.names }}
      token: \${{ steps.shell.outputs.token }}
      envcheck: \${{ steps.envcheck.outputs.seen }}
    steps:
      - run: printf 'NODE_OPTIONS=--require /nowhere.js\\nKEPT=yes\\n' >> "$GITHUB_ENV"
      - id: envcheck
        run: echo "seen=\${NODE_OPTIONS:-unset}/\${KEPT:-unset}" >> "$GITHUB_OUTPUT"
      - id: report
        uses: acme/report@v1
        with: { message: plain }
      - id: shell
        run: |
          echo "names=$(env | cut -d= -f1 | grep '^ACTIONS_' | sort | tr '\\n' ' ')" >> "$GITHUB_OUTPUT"
          echo "token=\${ACTIONS_RUNTIME_TOKEN:-none}" >> "$GITHUB_OUTPUT"
  oidc:
    runs-on: ubuntu-latest
    permissions: { id-token: write, contents: read }
    outputs:
      action: \${{ steps.report.outputs.seen }}
      shell: \${{ steps.shell.outputs.names }}
    steps:
      - id: report
        uses: acme/report@v1
        with: { message: oidc }
      - id: shell
        run: echo "names=$(env | cut -d= -f1 | grep '^ACTIONS_' | sort | tr '\\n' ' ')" >> "$GITHUB_OUTPUT"
`,
  '.github/workflows/push-only.yml': `
on: push
jobs: { a: { runs-on: x, steps: [ { run: "true" } ] } }
`,
};

let repo: TempRepo;
let host: FakeHost;
let runner: ActionsRunner;

beforeAll(async () => {
  repo = await tempRepo(WORKFLOWS);
  host = fakeHost(repo);
  runner = new ActionsRunner(host, { actions: { 'acme/report': REPORT_ACTION }, minuteMs: 60_000 });
});

afterAll(async () => {
  expect(runner.errors).toEqual([]);
  await runner.close();
  await repo.cleanup();
});

async function dispatch(workflow: string, inputs: Record<string, unknown> = {}): Promise<RunRecord> {
  return runner.dispatch({ owner: 'acme', repo: 'widgets', workflow, ref: 'main', inputs, actor: ACTOR });
}

async function finished(run: RunRecord): Promise<RunRecord> {
  await runner.idle();
  return run;
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

function jobs(run: RunRecord): Record<string, string | null> {
  return Object.fromEntries(latestJobs(run).map((j) => [j.key, j.conclusion]));
}

describe('the runner', () => {
  it('runs checkout, run steps, a node action and artifacts, with needs and outputs', async () => {
    const run = await dispatch('steps.yml', { label: 'L1' });
    expect(run.status).not.toBe('completed');
    expect(run.displayTitle).toBe('steps L1');
    await finished(run);
    const log = runner.logs(run.id);
    expect(run.conclusion, log).toBe('success');
    expect(jobs(run)).toEqual({ main: 'success', after: 'success' });
    expect(log).toContain('multi=[a\nb]');
    expect(log).toContain('levels=workflow/job-workflow/step/from-env-file');
    expect(log).toContain('report: hello L1');
    expect(log).toContain('report post: started=yes');
    expect(log).toContain('got 42 from success');
    expect(log).toContain('made by L1');

    const main = latestJobs(run).find((j) => j.key === 'main')!;
    expect(main.outputs).toEqual({ answer: '42' });
    expect(main.steps.map((s) => [s.name, s.conclusion])).toEqual([
      ['Set up job', 'success'],
      ['Run actions/checkout@v5', 'success'],
      ['Write a file', 'success'],
      ['See earlier outputs and env', 'success'],
      ['Run acme/report@v1', 'success'],
      ['Skipped while all is well', 'skipped'],
      ['Run actions/upload-artifact@v4', 'success'],
      ['Post Run acme/report@v1', 'success'],
      ['Complete job', 'success'],
    ]);

    // The action saw a runner's environment, and no GITHUB_TOKEN it was not given.
    const seenLine = log.split('\n').find((l) => l.startsWith('report: '));
    expect(seenLine).toBeDefined();
    const artifacts = runner.artifacts.forRun(run);
    expect(artifacts.map((a) => a.name)).toEqual(['result']);
    const files = unzipFiles(artifacts[0]!.zip);
    expect(new TextDecoder().decode(files.get('made.txt'))).toBe('made by L1\n');
    expect(new TextDecoder().decode(files.get('README.md'))).toBe('# widgets\n');

    // one token per job, revoked when the job ended; default permissions are contents: read
    expect(host.minted.slice(-2).map((m) => m.permissions)).toEqual([
      { metadata: 'read', contents: 'read', packages: 'read' },
      { metadata: 'read', contents: 'read', packages: 'read' },
    ]);
    expect(host.revoked).toEqual(expect.arrayContaining(host.minted.slice(-2).map((m) => m.token)));
  });

  it('leaves hidden files and folders out of an artifact unless include-hidden-files: true', async () => {
    const run = await finished(await dispatch('hidden.yml'));
    const byName = new Map(runner.artifacts.forRun(run).map((a) => [a.name, [...unzipFiles(a.zip).keys()].sort()]));
    expect(byName.get('default')).toEqual(['src/main.ts']);
    expect(byName.get('with-hidden')).toEqual(['.config/tool.json', '.gitignore', 'src/main.ts']);
    // a hidden search path is itself left out: nothing found, and `error` fails the step
    expect(byName.has('hidden-root')).toBe(false);
    expect(run.conclusion).toBe('failure');
    expect(runner.logs(run.id)).toContain('No files were found with the provided path: .hidden-out');
  });

  it('gives the runtime and OIDC request tokens to JavaScript actions only, never to run: steps', async () => {
    const run = await finished(await dispatch('runtime-tokens.yml'));
    expect(run.conclusion, runner.logs(run.id)).toBe('success');
    const out = Object.fromEntries(latestJobs(run).map((j) => [j.key, j.outputs]));
    const runtime = (job: string) => (JSON.parse(out[job]!.action!) as { runtime: string[] }).runtime;
    expect(runtime('plain')).toEqual(['ACTIONS_CACHE_URL', 'ACTIONS_RESULTS_URL', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RUNTIME_URL']);
    // OIDC only when the job may mint ID tokens.
    expect(runtime('oidc')).toEqual(['ACTIONS_CACHE_URL', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_URL', 'ACTIONS_RESULTS_URL', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RUNTIME_URL']);
    expect(out.plain!.shell!.trim()).toBe('');
    expect(out.oidc!.shell!.trim()).toBe('');
    expect(out.plain!.token).toBe('none');
  });

  it('refuses NODE_OPTIONS from GITHUB_ENV with an error line, keeping the step and every other variable', async () => {
    const run = await finished(await dispatch('runtime-tokens.yml'));
    expect(run.conclusion).toBe('success');
    const plain = latestJobs(run).find((j) => j.key === 'plain')!;
    expect(plain.outputs.envcheck).toBe('unset/yes');
    expect(runner.logs(run.id)).toContain("##[error]Can't store NODE_OPTIONS output parameter using '$GITHUB_ENV' command.");
  });

  it("keeps a step's npm install -g inside the job, fetching nothing: it fails at once, in the job's log", async () => {
    const run = await finished(await dispatch('global-npm.yml'));
    expect(run.conclusion).toBe('failure');
    const job = latestJobs(run).find((j) => j.key === 'install')!;
    // Not the machine's global prefix: the job's own folder.
    expect(job.outputs.prefix).toContain('npm-global');
    expect(runner.logs(run.id)).toMatch(/ECONNREFUSED 127\.0\.0\.1:9|127\.0\.0\.1:9/);
  });

  it('sends workflow_run and workflow_job webhooks in order', async () => {
    const before = host.events.length;
    const run = await finished(await dispatch('perms.yml'));
    const events = host.events.slice(before).filter((e) => (e.payload.workflow_run as { id?: number } | undefined)?.id === run.id || (e.payload.workflow_job as { run_id?: number } | undefined)?.run_id === run.id);
    const runActions = events.filter((e) => e.event === 'workflow_run').map((e) => e.payload.action);
    expect(runActions).toEqual(['requested', 'in_progress', 'completed']);
    const jobActions = events.filter((e) => e.event === 'workflow_job').map((e) => `${(e.payload.workflow_job as { name: string }).name}:${e.payload.action}`);
    expect(jobActions.filter((a) => a.startsWith('read:'))).toEqual(['read:queued', 'read:in_progress', 'read:completed']);
    expect(host.minted.slice(-2).map((m) => m.permissions).sort((a, b) => Object.keys(a).length - Object.keys(b).length)).toEqual([
      { metadata: 'read', contents: 'read' },
      { metadata: 'read', contents: 'write', actions: 'read' },
    ]);
  });

  it('skips after a failure, runs always() and failure() steps, honours continue-on-error and needs', async () => {
    const run = await finished(await dispatch('fails.yml'));
    const log = runner.logs(run.id);
    expect(run.conclusion).toBe('failure');
    expect(jobs(run)).toEqual({ a: 'failure', b: 'skipped', c: 'success' });
    expect(log).toContain('soft was failure/success');
    expect(log).toContain('cleanup ran');
    expect(log).toContain('failure seen');
    expect(log).toContain('a was failure');
    expect(log).not.toContain('never\n');
    const a = latestJobs(run).find((j) => j.key === 'a')!;
    expect(a.steps.find((s) => s.name === 'Not run after a failure')?.conclusion).toBe('skipped');
    expect(a.steps.find((s) => s.name === 'Breaks')?.conclusion).toBe('failure');
  });

  it('fails a job loudly on an unsupported step or job feature, naming it', async () => {
    const run = await finished(await dispatch('unsupported.yml'));
    expect(run.conclusion).toBe('failure');
    const [a, b, c] = latestJobs(run);
    expect(a!.conclusion).toBe('failure');
    expect(c!.conclusion).toBe('failure');
    expect(runner.jobLog(c!.id)).toMatch(/cannot parse `nope.x`/);
    expect(runner.jobLog(a!.id)).toMatch(/step 'Use something unknown' uses 'someone\/unknown-action@v3', which the emulator cannot run/);
    expect(runner.jobLog(b!.id)).toMatch(/job 'b' uses `services`, which the emulator's runner does not support/);
  });

  it('serialises runs of one concurrency group', async () => {
    const first = await dispatch('slow.yml');
    const second = await dispatch('slow.yml', { seconds: '0' });
    expect(first.status).toBe('in_progress');
    expect(second.status).toBe('queued');
    await runner.idle();
    expect([first.conclusion, second.conclusion]).toEqual(['success', 'success']);
    expect(Date.parse(second.runStartedAt)).toBeGreaterThanOrEqual(Date.parse(latestJobs(first)[0]!.completedAt!));
  });

  it('cancels a run: the running step stops, the run ends cancelled', async () => {
    const run = await dispatch('slow.yml', { seconds: '10' });
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    expect(runner.cancel(run.id)).toBe(true);
    await runner.idle();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(run.conclusion).toBe('cancelled');
    expect(jobs(run)).toEqual({ a: 'cancelled' });
    expect(runner.cancel(run.id)).toBe(false);
  });

  it('kills a step at its timeout, and a job at its own, keeping always() steps', async () => {
    const run = await finished(await dispatch('timeout.yml'));
    const log = runner.logs(run.id);
    expect(jobs(run)).toEqual({ 'step-timeout': 'failure', 'job-timeout': 'cancelled' });
    expect(run.conclusion).toBe('failure');
    expect(log).toContain("has timed out");
    expect(log).toContain('after step timeout');
    expect(log).toContain('has exceeded the maximum execution time');
    // partial work survives a job timeout
    const partial = runner.artifacts.forRun(run).find((a) => a.name === 'partial');
    expect(partial && new TextDecoder().decode(partial.files.get('work.txt'))).toBe('partial\n');
  });

  it('concludes a job past its timeout-minutes `cancelled`, and its run too, saying why in the log and the webhooks', async () => {
    const before = host.events.length;
    const run = await finished(await dispatch('job-timeout.yml'));
    expect(jobs(run)).toEqual({ slow: 'cancelled' });
    expect(run.conclusion).toBe('cancelled');
    expect(runner.logs(run.id)).toMatch(/The job running on runner .+ has exceeded the maximum execution time of 0\.01 minutes\./);
    const completed = host.events.slice(before).filter((e) => e.payload.action === 'completed');
    const job = completed.find((e) => e.event === 'workflow_job' && (e.payload.workflow_job as { run_id: number }).run_id === run.id)!;
    const wr = completed.find((e) => e.event === 'workflow_run' && (e.payload.workflow_run as { id: number }).id === run.id)!;
    expect((job.payload.workflow_job as { conclusion: string }).conclusion).toBe('cancelled');
    expect((wr.payload.workflow_run as { conclusion: string }).conclusion).toBe('cancelled');
  });

  it('checks out a pinned commit and runs a local action from the workspace', async () => {
    const base = (await runner.dispatch({ owner: 'acme', repo: 'widgets', workflow: 'pinned.yml', ref: 'main', inputs: { base: 'main' }, actor: ACTOR })).headSha;
    await runner.idle();
    await repo.commit({ 'version.txt': 'v2\n' });
    const run = await finished(await dispatch('pinned.yml', { base }));
    const log = runner.logs(run.id);
    expect(run.conclusion, log).toBe('success');
    expect(run.headSha).not.toBe(base);
    expect(log).toContain(`head=${base} branch=HEAD commits=1`);
    expect(log).toContain('v1');
    expect(log).toContain('hello local from true');
  });

  it('cancels the running member of a group with cancel-in-progress', async () => {
    const first = await dispatch('replace.yml');
    await new Promise((r) => setTimeout(r, 150));
    const second = await dispatch('replace.yml');
    await until(() => first.status === 'completed');
    expect(first.conclusion).toBe('cancelled');
    runner.cancel(second.id);
    await runner.idle();
    expect(second.conclusion).toBe('cancelled');
    expect(jobs(second)).toEqual({ a: 'cancelled' });
  });

  it('re-runs a completed run as a new attempt', async () => {
    const run = await finished(await dispatch('perms.yml'));
    expect(await runner.rerun(run.id)).toBe(true);
    await runner.idle();
    expect(run.runAttempt).toBe(2);
    expect(run.conclusion).toBe('success');
    expect(latestJobs(run)).toHaveLength(2);
    expect(run.jobs).toHaveLength(4);
  });

  it('runs a TypeScript action from source with nodeArgs', async () => {
    const tsRunner = new ActionsRunner(host, { actions: { 'acme/ts': fileURLToPath(new URL('./fixtures/ts-action', import.meta.url)) }, nodeArgs: ['--import', TSX] });
    try {
      const run = await tsRunner.dispatch({ owner: 'acme', repo: 'widgets', workflow: 'typescript.yml', ref: 'main', actor: ACTOR });
      await tsRunner.idle();
      expect(run.conclusion, tsRunner.logs(run.id)).toBe('success');
      expect(tsRunner.logs(run.id)).toContain('hello source');
    } finally {
      await tsRunner.close();
    }
  });

  it('refuses dispatches GitHub refuses', async () => {
    await expect(dispatch('push-only.yml')).rejects.toMatchObject({ status: 422, message: "Workflow does not have 'workflow_dispatch' trigger" });
    await expect(dispatch('missing.yml')).rejects.toMatchObject({ status: 404 });
    await expect(dispatch('steps.yml', {})).rejects.toMatchObject({ status: 422, message: "Required input 'label' not provided" });
    await expect(runner.dispatch({ owner: 'acme', repo: 'widgets', workflow: 'steps.yml', ref: 'nope', inputs: { label: 'x' }, actor: ACTOR })).rejects.toMatchObject({
      status: 422,
      message: 'No ref found for: nope',
    });
  });
});
