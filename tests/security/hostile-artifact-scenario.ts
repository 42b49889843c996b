// The hostile-artifact scenario, shared by its security test and the bench figure
// `app_rss_mb_hostile_artifact`: a worker run whose completion the App missed has its result
// artifact replaced by one that inflates 1000:1 (384 KiB → 384 MiB); the App, restarted,
// finds it on a sweep and applies it while the process's RSS is sampled.
import { zipBomb } from '../fixtures/zip-bomb.ts';
import { unzipFiles } from '../emulator/actions/zip.ts';
import { appRequests, openLabelled, startHarness, type Harness } from '../app/harness.ts';

const BUILD = `name: build
on: { labels: ["baton:build"] }
agents: { coder: { uses: claude-code } }
steps:
  - { id: build, agent: coder, prompt: Build it., retries: 0 }
`;

export interface HostileArtifact {
  h: Harness;
  issue: number;
  /** Successful downloads of the hostile artifact by the App so far. */
  downloads(): number;
  /** Restarts the App and sweeps; the App's peak RSS above its idle RSS during the sweep, in MiB. */
  sweepAfterRestart(): Promise<number>;
}

export async function hostileArtifact(): Promise<HostileArtifact> {
  const h = await startHarness({ files: { '.agents/workflows/build.yml': BUILD }, agents: { build: [{ write: { 'a.txt': 'a\n' } }] } });
  // The App misses the worker's completion; it finds the run on a sweep after a restart.
  h.emu.faults.addWebhook({ kind: 'drop', event: 'workflow_run.completed', times: 1 });
  const issue = await openLabelled(h, 'baton:build');
  await h.settle();
  const worker = [...h.runner.store.runs.values()].find((r) => r.path.endsWith('baton-worker.yml'))!;
  const artifact = h.runner.artifacts.forRun(worker).find((a) => a.name === 'baton-result')!;
  // What a hostile job uploads instead: its own result.json, and a file of 384 MiB of zeros.
  const own = JSON.parse(new TextDecoder().decode(unzipFiles(artifact.zip).get('result.json'))) as object;
  artifact.zip = await zipBomb(own);
  return {
    h,
    issue,
    // The redirect's target (status 200) is the download itself.
    downloads: () => appRequests(h.emu).filter((r) => r.method === 'GET' && r.status === 200 && r.path.includes(`/actions/artifacts/${artifact.id}/zip`)).length,
    async sweepAfterRestart() {
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
      return (Math.max(peak, process.memoryUsage().rss) - idle) / (1024 * 1024);
    },
  };
}
