// Attack: a worker job uploads a result artifact that inflates 1000:1 (384 KiB → 384 MiB).
// The App reads it in the one process that serves every installation. The artifact must be
// refused with a message in the thread — by its size before the download when GitHub's
// `size_in_bytes` is over the cap, else by the streaming caps the moment the inflated bytes
// pass them — never by taking the process's memory, and the sweep after a restart must not
// fetch it again.
import { afterEach, describe, expect, it } from 'vitest';
import { readResultZip } from '../../src/agents/result.ts';
import { inflateWithin, RESULT_CAPS } from '../../src/agents/result-caps.ts';
import { downloadResult } from '../../src/hosts/github/apply.ts';
import { unzipFiles } from '../emulator/actions/zip.ts';
import { zipBomb } from '../fixtures/zip-bomb.ts';
import { appRequests, openLabelled, startHarness, type Harness } from '../app/harness.ts';

const MiB = 1024 * 1024;
const RESULT = { version: 1, run: 'r', step: 's', slot: '0', attempt: 1, status: 'succeeded', outputs: null, error: null, usage: {}, base: 'abc', backend: 'claude-code', durationMs: 1 };

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('a result artifact that inflates 1000:1', () => {
  it('is refused with a message once the inflated bytes pass the cap: inflation stops early, not at 384 MiB', async () => {
    const bomb = await zipBomb(RESULT);
    expect((384 * MiB) / bomb.length).toBeGreaterThan(1000);
    const counter = { inflated: 0 };
    expect(() => inflateWithin(bomb, RESULT_CAPS, counter)).toThrow(/"files\/big\.bin" in the worker's result artifact inflates to more than 32 MiB/);
    // One 16 KiB step of compressed input past the cap at most: never the whole 384 MiB.
    expect(counter.inflated).toBeGreaterThan(RESULT_CAPS.fileBytes);
    expect(counter.inflated).toBeLessThan(RESULT_CAPS.fileBytes + 20 * MiB);
    expect(() => readResultZip(bomb)).toThrow(/inflates to more than 32 MiB, the most baton takes for one file/);
  });

  it('is refused by its size_in_bytes before a byte is downloaded', async () => {
    const requests: string[] = [];
    const gh = {
      owner: 'acme',
      repo: 'widgets',
      octokit: {
        request: async (route: string) => {
          requests.push(route);
          return { data: { artifacts: [{ id: 7, name: 'baton-result', expired: false, size_in_bytes: RESULT_CAPS.artifactBytes + 1 }] } };
        },
      },
    };
    await expect(downloadResult(gh as never, 1)).rejects.toThrow("the worker's result artifact is 32 MiB, over the 32 MiB baton downloads; it was not downloaded");
    expect(requests).toEqual(['GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts']);
  });

  it('applied by the App: the attempt fails with a message, memory stays bounded, and the sweep after a restart does not fetch it again', async () => {
    const build = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: build, agent: coder, prompt: Build it., retries: 0 }
`;
    h = await startHarness({ files: { '.agents/workflows/build.yml': build }, agents: { build: [{ write: { 'a.txt': 'a\n' } }] } });
    // The App misses the worker's completion; it finds the run on a sweep after a restart.
    h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
    const n = await openLabelled(h, 'baton:build');
    await h.settle();
    const worker = [...h.runner.store.runs.values()].find((r) => r.path.endsWith('baton-worker.yml'))!;
    const artifact = h.runner.artifacts.forRun(worker).find((a) => a.name === 'baton-result')!;
    // What the hostile job uploaded instead: its own result.json, and a file of 384 MiB of zeros.
    const own = JSON.parse(new TextDecoder().decode(unzipFiles(artifact.zip).get('result.json'))) as object;
    artifact.zip = await zipBomb(own);
    const downloads = () => appRequests(h!.emu).filter((r) => r.method === 'GET' && r.status === 200 && r.path.includes(`/actions/artifacts/${artifact.id}/zip`)).length;

    await h.restart();
    globalThis.gc?.();
    const idle = process.memoryUsage().rss;
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
    try {
      await h.app.sweep();
      await h.settle();
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(downloads()).toBe(1);
    const record = await h.record(n);
    expect(record, record).toContain('run `build-1-1` — failed');
    expect(record).toContain('inflates to more than 32 MiB, the most baton takes for one file');
    // Loose: the 384 MiB the zip unfolds to would show; the cap keeps the growth far below it.
    expect((peak - idle) / MiB).toBeLessThan(200);

    await h.restart();
    await h.app.sweep();
    await h.settle();
    expect(downloads()).toBe(1);
  }, 120_000);
});
