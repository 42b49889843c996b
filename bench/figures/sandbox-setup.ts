// How long the agent sandbox's setup takes (src/agents/sandbox/setup.ts: the agent's user,
// the sudoers rule, the nftables ruleset, the checkout's permissions), measured as root in a
// network and mount namespace of its own with a user database the scenario makes
// (tests/agents/sandbox/fence-scenario.ts), so the machine is not changed. A one-file checkout:
// the permission walk grows with the checkout's size.
import { runInNamespace } from '../../tests/agents/sandbox/namespace.ts';
import { median } from '../measure.ts';
import type { Figure } from './figure.ts';

const RUNS = 5;

export const sandboxSetupMs: Figure = {
  name: 'sandbox_setup_ms',
  description: 'setupFence (useradd, sudoers rule checked by visudo, nft -f, checkout permissions) as root in a fresh network namespace, median of 5',
  unit: 'ms',
  target: { op: '<', value: 3000 },
  measure: () => median(Array.from({ length: RUNS }, () => (JSON.parse(runInNamespace('setup')) as { ms: number }).ms)),
};
