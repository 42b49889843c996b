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
import { zipBomb } from '../fixtures/zip-bomb.ts';
import type { Harness } from '../app/harness.ts';
import { hostileArtifact } from './hostile-artifact-scenario.ts';

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
    // One 4 KiB step of compressed input past the cap at most: never the whole 384 MiB.
    expect(counter.inflated).toBeGreaterThan(RESULT_CAPS.fileBytes);
    expect(counter.inflated).toBeLessThan(RESULT_CAPS.fileBytes + 5 * MiB);
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
    const attack = await hostileArtifact();
    h = attack.h;
    const grew = await attack.sweepAfterRestart();
    expect(attack.downloads()).toBe(1);
    const record = await h.record(attack.issue);
    expect(record, record).toContain('run `build-1-1` — failed');
    expect(record).toContain('inflates to more than 32 MiB, the most baton takes for one file');
    // Loose: the 384 MiB the zip unfolds to would show; the cap keeps the growth far below it.
    expect(grew).toBeLessThan(200);

    await attack.sweepAfterRestart();
    expect(attack.downloads()).toBe(1);
  }, 120_000);
});
