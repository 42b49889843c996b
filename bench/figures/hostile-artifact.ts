// The App's peak memory while applying a result artifact that inflates 1000:1 (the
// hostile-artifact scenario of the security tests): RSS above the App's idle RSS, in MB.
import { hostileArtifact } from '../../tests/security/hostile-artifact-scenario.ts';
import type { Figure } from './figure.ts';

export const appRssMbHostileArtifact: Figure = {
  name: 'app_rss_mb_hostile_artifact',
  description: "the App's peak RSS above idle while it applies a result whose zip inflates 1000:1 (384 KiB → 384 MiB)",
  unit: 'MB',
  target: { op: '<', value: 100 },
  async measure() {
    const attack = await hostileArtifact();
    try {
      return await attack.sweepAfterRestart();
    } finally {
      await attack.h.close();
    }
  },
};
