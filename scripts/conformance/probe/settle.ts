/**
 * `--runner-probe`: the probe on the emulator's runner (in its job sandbox, the model of
 * GitHub's), and on GitHub's hosted runners when a repository is given; the two side by side.
 */
import { runWith, type Needs } from '../runner.ts';
import { emulatorTarget } from '../targets/emulator.ts';
import type { Target } from '../types.ts';
import { compareProbes, type FactRow } from './compare-facts.ts';
import { PROBE_IMAGES } from './facts.ts';
import { PROBE_ROUTES, runProbe, type ProbeResult } from './run-probe.ts';

export const RUNNER_PROBE: Needs = { name: 'the runner probe', needs: ['maintainer'], routes: PROBE_ROUTES };

/** A probe that could not run at all counts as every image missing, saying why. */
async function probeOn(target: Target, log: (line: string) => void): Promise<ProbeResult> {
  const outcome = await runWith(RUNNER_PROBE, target, log, runProbe);
  if ('skipped' in outcome || 'failed' in outcome) {
    const why = 'skipped' in outcome ? `skipped: ${outcome.skipped as string}` : `failed: ${outcome.failed as string}`;
    return Object.fromEntries(PROBE_IMAGES.map((image) => [image, { missing: why }]));
  }
  return outcome;
}

export interface ProbeComparison {
  github: ProbeResult | null;
  emulator: ProbeResult;
  rows: FactRow[];
}

export async function settleProbe(github: Target | null, log: (line: string) => void): Promise<ProbeComparison> {
  const fromGitHub = github === null ? null : await probeOn(github, log);
  const target = await emulatorTarget({}, { sandbox: true });
  let emulator: ProbeResult;
  try {
    emulator = await probeOn(target, log);
  } finally {
    await target.close();
  }
  return { github: fromGitHub, emulator, rows: compareProbes(fromGitHub, emulator) };
}
