// Runs the fence's scenario (fence-scenario.ts) as root in a network and mount namespace of
// its own, for the tests and the bench; fails naming the capability it lacks, never skips.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCENARIO = fileURLToPath(new URL('./fence-scenario.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Runs a scenario (default: the fence's) in fresh namespaces; fails naming the capability it
 * lacks. Returns the scenario's last line of output (JSON).
 */
export function runInNamespace(mode: string, scenario: string = SCENARIO): string {
  const r = spawnSync('unshare', ['--net', '--mount', '--fork', '--', process.execPath, '--import', 'tsx', scenario, mode], { cwd: ROOT, encoding: 'utf8', timeout: 180_000 });
  if (r.error || r.status !== 0) {
    const why = `${r.error?.message ?? ''}${r.stderr}`.trim();
    if (/unshare failed|Operation not permitted|EPERM|Permission denied|ENOENT/.test(why) && process.getuid?.() !== 0) {
      throw new Error(`the fence's tests need root (CAP_SYS_ADMIN to make a network and mount namespace, CAP_NET_ADMIN for nftables inside it); this process is uid ${process.getuid?.()}: ${why}`);
    }
    if (/netlink|nft .*failed|Operation not permitted/.test(why)) throw new Error(`the fence's tests need CAP_NET_ADMIN (nftables in a network namespace): ${why}`);
    throw new Error(`the fence scenario failed (exit ${r.status ?? r.signal}): ${why.slice(-3000)}`);
  }
  return r.stdout.trim().split('\n').pop()!;
}

