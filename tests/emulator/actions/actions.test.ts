// Actions end to end: Octokit against the emulator's HTTP server, with every response
// checked against GitHub's OpenAPI description and every webhook against its schema.
import { Octokit } from '@octokit/rest';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../emulator.ts';
import { withActions } from './index.ts';
import type { ActionsRunner } from './runner.ts';
import { unzipFiles } from './zip.ts';
import { GITHUB_ACTION_PINS } from '../../../src/init/action-pins.ts';

const FIXTURES = fileURLToPath(new URL('./fixtures', import.meta.url));

const WORKER = `
name: baton-worker
run-name: "baton \${{ inputs.run }} \${{ inputs.step }} #\${{ inputs.attempt }}"
on:
  workflow_dispatch:
    inputs:
      run: { required: true }
      step: { required: true }
      attempt: { required: true }
      index: { required: false, default: "" }
permissions: { contents: read }
jobs:
  agent:
    runs-on: ubuntu-latest
    outputs:
      answer: \${{ steps.work.outputs.answer }}
    steps:
      - uses: actions/checkout@v5
        with: { persist-credentials: false }
      - name: Work
        id: work
        run: |
          cat README.md
          mkdir -p "$RUNNER_TEMP/baton-result"
          echo "result of \${{ inputs.step }}" > "$RUNNER_TEMP/baton-result/result.txt"
          cp README.md "$RUNNER_TEMP/baton-result/"
          echo "answer=42" >> "$GITHUB_OUTPUT"
      - id: report
        uses: acme/report@v1
        with:
          message: step \${{ inputs.step }}
      - name: Show what the action saw
        env:
          SEEN: \${{ steps.report.outputs.seen }}
        run: echo "SEEN=$SEEN"
      - uses: actions/upload-artifact@v4
        if: always()
        with: { name: baton-result, path: "\${{ runner.temp }}/baton-result" }
  apply:
    needs: agent
    runs-on: ubuntu-latest
    steps:
      - run: echo "agent said \${{ needs.agent.outputs.answer }}"
`;

/** A checkout by the commit baton pins, and one by a SHA no release of actions/checkout has. */
const pinnedCheckout = (ref: string) => `
on: workflow_dispatch
permissions: { contents: read }
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@${ref} # v7.0.1
        with: { persist-credentials: false }
      - run: cat README.md
`;

const TOKENS = `
on: workflow_dispatch
permissions: { contents: read }
jobs:
  read-only:
    runs-on: ubuntu-latest
    steps:
      - run: node "$FIXTURES/create-ref.mjs" refs/heads/from-read-only
        env: { TOKEN: "\${{ secrets.GITHUB_TOKEN }}" }
  writer:
    needs: read-only
    runs-on: ubuntu-latest
    permissions: { contents: write }
    steps:
      - run: node "$FIXTURES/create-ref.mjs" refs/heads/from-writer
        env: { TOKEN: "\${{ github.token }}" }
`;

const SERIAL = `
on:
  workflow_dispatch:
    inputs:
      label: { required: true }
concurrency: { group: "serial-\${{ github.ref }}" }
jobs:
  one:
    runs-on: ubuntu-latest
    steps:
      - run: echo "start \${{ inputs.label }}" && sleep 0.4 && echo "end \${{ inputs.label }}"
`;

const BROKEN = `
on: workflow_dispatch
jobs:
  job:
    runs-on: ubuntu-latest
    steps:
      - run: echo ok
      - name: Ask the cache
        uses: actions/cache@v4
        with: { path: x, key: y }
      - name: Skipped after the failure
        run: echo never
  after:
    needs: job
    runs-on: ubuntu-latest
    steps:
      - run: echo never
`;

let emu: Emulator;
let runner: ActionsRunner;
let octokit: Octokit;
const owner = 'acme';
const repo = 'widgets';

beforeAll(async () => {
  const actions = withActions({
    actions: { 'acme/report': `${FIXTURES}/report-action` },
    env: { REPORT_CALL_API: 'true', FIXTURES },
  });
  emu = await startEmulator({ plugins: [actions.plugin] });
  runner = actions.runner;
  await emu.createRepo(owner, repo, {
    'README.md': '# widgets\n',
    '.github/workflows/baton-worker.yml': WORKER,
    '.github/workflows/tokens.yml': TOKENS,
    '.github/workflows/serial.yml': SERIAL,
    '.github/workflows/broken.yml': BROKEN,
  });
  const token = emu.auth.mint({ owner, repo, permissions: { actions: 'write', contents: 'read', metadata: 'read' } });
  // Octokit logs every 4xx; these tests ask for some on purpose.
  const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
  octokit = new Octokit({ baseUrl: emu.apiUrl, auth: token, log: quiet });
});

afterAll(async () => {
  expect(runner?.errors ?? []).toEqual([]);
  await emu?.close();
});

async function dispatch(workflow_id: string, inputs: Record<string, string> = {}): Promise<number> {
  const res = await octokit.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', {
    owner,
    repo,
    workflow_id,
    ref: 'main',
    inputs,
    return_run_details: true,
  });
  expect(res.status).toBe(200);
  return (res.data as { workflow_run_id: number }).workflow_run_id;
}

async function jobLog(jobId: number): Promise<string> {
  const res = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner, repo, job_id: jobId });
  return String(res.data);
}

describe('Actions through the API', () => {
  it('runs a dispatched worker: checkout, run steps, a node action, job needs, an artifact to download', async () => {
    const runId = await dispatch('baton-worker.yml', { run: 'fix-42-1', step: 'plan', attempt: '1' });
    const early = await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId });
    expect(early.data.display_title).toBe('baton fix-42-1 plan #1');
    expect(early.data.name).toBe('baton-worker');
    await runner.idle();

    const { data: run } = await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId });
    expect(run.status).toBe('completed');
    expect(run.conclusion, runner.logs(runId)).toBe('success');
    expect(run.event).toBe('workflow_dispatch');
    expect(run.head_branch).toBe('main');
    expect(run.run_attempt).toBe(1);
    expect(run.head_sha).toBe((await octokit.rest.git.getRef({ owner, repo, ref: 'heads/main' })).data.object.sha);

    const { data: jobs } = await octokit.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id: runId });
    expect(jobs.jobs.map((j) => [j.name, j.conclusion])).toEqual([
      ['agent', 'success'],
      ['apply', 'success'],
    ]);
    const agent = jobs.jobs[0]!;
    expect(agent.steps?.map((s) => s.name)).toContain('Work');

    const agentLog = await jobLog(agent.id);
    expect(agentLog).toContain('# widgets'); // checkout gave the real files
    expect(agentLog).toContain('report: step plan');
    const seen = JSON.parse(agentLog.split('\n').find((l) => l.startsWith('SEEN='))!.slice(5)) as Record<string, any>;
    expect(seen.message).toBe('step plan');
    expect(seen.spaced).toBe('spaced');
    expect(seen.tokenInput).toBe(true); // the action's default `${{ github.token }}`
    expect(seen.tokenEnv).toBeNull(); // GITHUB_TOKEN only when a workflow passes it
    expect(seen.api).toEqual({ status: 200, fullName: 'acme/widgets' });
    expect(seen.event).toEqual({ name: 'workflow_dispatch', inputs: { run: 'fix-42-1', step: 'plan', attempt: '1', index: '' }, workflow: '.github/workflows/baton-worker.yml' });
    expect(seen.env).toMatchObject({
      GITHUB_REPOSITORY: 'acme/widgets',
      GITHUB_REPOSITORY_OWNER: 'acme',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_SHA: run.head_sha,
      GITHUB_RUN_ID: String(runId),
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_JOB: 'agent',
      GITHUB_API_URL: emu.apiUrl,
      GITHUB_SERVER_URL: emu.webUrl,
      GITHUB_ACTIONS: 'true',
      CI: 'true',
      RUNNER_OS: 'Linux',
      GITHUB_EVENT_NAME: 'workflow_dispatch',
    });
    expect(seen.cwd).toBe(seen.env.GITHUB_WORKSPACE);
    expect(runner.store.jobs.get(agent.id)!.summary).toBe('### report\nstep plan\n');
    expect(await jobLog(jobs.jobs[1]!.id)).toContain('agent said 42');

    const { data: artifacts } = await octokit.rest.actions.listWorkflowRunArtifacts({ owner, repo, run_id: runId });
    expect(artifacts.artifacts.map((a) => a.name)).toEqual(['baton-result']);
    const artifact = artifacts.artifacts[0]!;
    const download = await octokit.rest.actions.downloadArtifact({ owner, repo, artifact_id: artifact.id, archive_format: 'zip' });
    const files = unzipFiles(new Uint8Array(download.data as ArrayBuffer));
    expect([...files.keys()].sort()).toEqual(['README.md', 'result.txt']);
    expect(new TextDecoder().decode(files.get('result.txt'))).toBe('result of plan\n');
    expect(artifact.size_in_bytes).toBe((download.data as ArrayBuffer).byteLength);

    const repoWide = await octokit.rest.actions.listArtifactsForRepo({ owner, repo, name: 'baton-result' });
    expect(repoWide.data.artifacts.map((a) => a.id)).toContain(artifact.id);

    // the webhooks an app watches, each one validated against the schemas on the way out
    await emu.webhooks.idle();
    const mine = emu.webhooks.deliveries.filter(
      (d) => (d.payload.workflow_run as { id?: number } | undefined)?.id === runId || (d.payload.workflow_job as { run_id?: number } | undefined)?.run_id === runId,
    );
    expect(mine.filter((d) => d.event === 'workflow_run').map((d) => d.action)).toEqual(['requested', 'in_progress', 'completed']);
    expect(mine.filter((d) => d.event === 'workflow_job' && (d.payload.workflow_job as { name: string }).name === 'agent').map((d) => d.action)).toEqual([
      'queued',
      'in_progress',
      'completed',
    ]);
    expect(emu.webhooks.deliveries.some((d) => d.event === 'workflow_dispatch')).toBe(true);
    emu.assertNoViolations();
  });

  it('lists workflows and filters runs', async () => {
    const { data } = await octokit.rest.actions.listRepoWorkflows({ owner, repo });
    expect(data.workflows.map((w) => w.path).sort()).toEqual([
      '.github/workflows/baton-worker.yml',
      '.github/workflows/broken.yml',
      '.github/workflows/serial.yml',
      '.github/workflows/tokens.yml',
    ]);
    const worker = data.workflows.find((w) => w.name === 'baton-worker')!;
    expect((await octokit.rest.actions.getWorkflow({ owner, repo, workflow_id: worker.id })).data.path).toBe('.github/workflows/baton-worker.yml');
    const runs = await octokit.rest.actions.listWorkflowRuns({ owner, repo, workflow_id: 'baton-worker.yml', status: 'success', branch: 'main', event: 'workflow_dispatch' });
    expect(runs.data.total_count).toBeGreaterThanOrEqual(1);
    expect((await octokit.rest.actions.listWorkflowRunsForRepo({ owner, repo, status: 'failure', head_sha: '0'.repeat(40) })).data.total_count).toBe(0);
    emu.assertNoViolations();
  });

  it("limits each job's GITHUB_TOKEN to the job's permissions", async () => {
    const runId = await dispatch('tokens.yml');
    await runner.idle();
    const { data } = await octokit.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id: runId });
    const logs = await Promise.all(data.jobs.map((j) => jobLog(j.id)));
    expect(logs[0]).toContain('create refs/heads/from-read-only: status=403');
    expect(logs[1]).toContain('create refs/heads/from-writer: status=201');
    await expect(octokit.rest.git.getRef({ owner, repo, ref: 'heads/from-read-only' })).rejects.toMatchObject({ status: 404 });
    expect((await octokit.rest.git.getRef({ owner, repo, ref: 'heads/from-writer' })).data.object.sha).toHaveLength(40);
    emu.assertNoViolations();
  });

  it('serialises two runs of one concurrency group', async () => {
    const first = await dispatch('serial.yml', { label: 'first' });
    const second = await dispatch('serial.yml', { label: 'second' });
    const queued = await octokit.rest.actions.listWorkflowRuns({ owner, repo, workflow_id: 'serial.yml', status: 'queued' });
    expect(queued.data.workflow_runs.map((r) => r.id)).toEqual([second]);
    await runner.idle();
    const [a, b] = await Promise.all([first, second].map((run_id) => octokit.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id })));
    expect(Date.parse(b!.data.jobs[0]!.started_at)).toBeGreaterThanOrEqual(Date.parse(a!.data.jobs[0]!.completed_at!));
    emu.assertNoViolations();
  });

  it('fails a job on an unsupported step, naming the step', async () => {
    const runId = await dispatch('broken.yml');
    await runner.idle();
    const { data: run } = await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId });
    expect(run.conclusion).toBe('failure');
    const { data } = await octokit.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id: runId });
    expect(data.jobs[0]!.steps?.find((s) => s.name === 'Ask the cache')?.conclusion).toBe('failure');
    expect(data.jobs[0]!.steps?.find((s) => s.name === 'Skipped after the failure')?.conclusion).toBe('skipped');
    expect(data.jobs.map((j) => [j.name, j.conclusion])).toEqual([
      ['job', 'failure'],
      ['after', 'skipped'],
    ]);
    expect(await jobLog(data.jobs[0]!.id)).toContain("step 'Ask the cache' uses 'actions/cache@v4', which the emulator cannot run");
    emu.assertNoViolations();
  });

  it('answers 422 for invalid dispatch inputs and 404 for unknown workflows, like GitHub', async () => {
    const call = (workflow_id: string, inputs: Record<string, string>) =>
      octokit.rest.actions.createWorkflowDispatch({ owner, repo, workflow_id, ref: 'main', inputs });
    await expect(call('baton-worker.yml', { run: 'r', step: 's', attempt: '1', bogus: 'x' })).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('Unexpected inputs provided: ["bogus"]'),
    });
    await expect(call('baton-worker.yml', { run: 'r' })).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining("Required input 'step' not provided"),
    });
    await expect(call('nope.yml', {})).rejects.toMatchObject({ status: 404 });
    // without return_run_details: 204, as before the option existed
    const plain = await call('serial.yml', { label: 'plain' });
    expect(plain.status).toBe(204);
    await runner.idle();
    emu.assertNoViolations();
  });

  it('cancels a run through the API and refuses to cancel a completed one', async () => {
    const runId = await dispatch('serial.yml', { label: 'to-cancel' });
    expect((await octokit.rest.actions.cancelWorkflowRun({ owner, repo, run_id: runId })).status).toBe(202);
    await runner.idle();
    expect((await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId })).data.conclusion).toBe('cancelled');
    await expect(octokit.rest.actions.cancelWorkflowRun({ owner, repo, run_id: runId })).rejects.toMatchObject({ status: 409 });
    emu.assertNoViolations();
  });

  it('deletes a completed run with its jobs and artifacts, and refuses while it runs', async () => {
    const runId = await dispatch('baton-worker.yml', { run: 'fix-7-1', step: 'gone', attempt: '1' });
    await expect(octokit.rest.actions.deleteWorkflowRun({ owner, repo, run_id: runId })).rejects.toMatchObject({ status: 409 });
    await runner.idle();
    const jobs = (await octokit.rest.actions.listJobsForWorkflowRun({ owner, repo, run_id: runId })).data.jobs;
    const artifacts = (await octokit.rest.actions.listWorkflowRunArtifacts({ owner, repo, run_id: runId })).data.artifacts;
    expect(artifacts.length).toBeGreaterThan(0);
    expect((await octokit.rest.actions.deleteWorkflowRun({ owner, repo, run_id: runId })).status).toBe(204);
    await expect(octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId })).rejects.toMatchObject({ status: 404 });
    await expect(octokit.rest.actions.listWorkflowRunArtifacts({ owner, repo, run_id: runId })).rejects.toMatchObject({ status: 404 });
    await expect(octokit.rest.actions.getJobForWorkflowRun({ owner, repo, job_id: jobs[0]!.id })).rejects.toMatchObject({ status: 404 });
    await expect(octokit.rest.actions.getArtifact({ owner, repo, artifact_id: artifacts[0]!.id })).rejects.toMatchObject({ status: 404 });
    const listed = (await octokit.rest.actions.listWorkflowRunsForRepo({ owner, repo, per_page: 100 })).data.workflow_runs;
    expect(listed.map((r) => r.id)).not.toContain(runId);
    await expect(octokit.rest.actions.deleteWorkflowRun({ owner, repo, run_id: runId })).rejects.toMatchObject({ status: 404 });
    emu.assertNoViolations();
  });

  it('runs GitHub\'s actions at the commits baton pins, and refuses a ref GitHub could not resolve', async () => {
    const unknownSha = '0123456789abcdef0123456789abcdef01234567';
    await emu.createRepo(owner, 'pins', {
      'README.md': '# pins\n',
      '.github/workflows/pinned.yml': pinnedCheckout(GITHUB_ACTION_PINS.checkout.commit),
      '.github/workflows/unknown-pin.yml': pinnedCheckout(unknownSha),
    });
    const api = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo: 'pins', permissions: { actions: 'write', metadata: 'read' } }) });
    const start = async (workflow_id: string) =>
      ((await api.request('POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches', { owner, repo: 'pins', workflow_id, ref: 'main', return_run_details: true })).data as { workflow_run_id: number }).workflow_run_id;
    const pinned = await start('pinned.yml');
    const unknown = await start('unknown-pin.yml');
    await runner.idle();
    expect((await api.rest.actions.getWorkflowRun({ owner, repo: 'pins', run_id: pinned })).data.conclusion, runner.logs(pinned)).toBe('success');
    expect((await api.rest.actions.getWorkflowRun({ owner, repo: 'pins', run_id: unknown })).data.conclusion).toBe('failure');
    expect(runner.logs(unknown)).toContain(`Unable to resolve action \`actions/checkout@${unknownSha}\`, unable to find version \`${unknownSha}\``);
    emu.assertNoViolations();
  });

  it('lists runs whose head commit an App wrote through the contents API (a [bot] author)', async () => {
    const writer = new Octokit({ baseUrl: emu.apiUrl, auth: emu.auth.mint({ owner, repo, permissions: { contents: 'write', metadata: 'read' } }) });
    const put = await writer.rest.repos.createOrUpdateFileContents({ owner, repo, path: 'notes/by-app.txt', message: 'A note by the app', content: Buffer.from('hi\n').toString('base64') });
    expect(put.data.commit.author?.email).toMatch(/^\d+\+.+\[bot\]@users\.noreply\.github\.com$/);
    const runId = await dispatch('serial.yml', { label: 'after-app-commit' });
    await runner.idle();
    const listed = (await octokit.rest.actions.listWorkflowRunsForRepo({ owner, repo, per_page: 100 })).data.workflow_runs;
    const run = listed.find((r) => r.id === runId)!;
    expect(run.head_commit?.author?.email).toBe(put.data.commit.author?.email);
    expect((await octokit.rest.actions.getWorkflowRun({ owner, repo, run_id: runId })).status).toBe(200);
    emu.assertNoViolations();
  });
});
