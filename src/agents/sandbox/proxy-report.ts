// What the egress proxy tells the worker: refusals counted by host, and allowed hosts it could
// not reach. Bounded, because the hosts are the agent's choice: a hostile agent asking for a
// million names must not grow the worker's memory or the step's record. Past `maxHosts` distinct
// hosts, the rest are summed into one `(other hosts)` line.
import type { SandboxReport } from '../../engine/sandbox.ts';

export type ProxyReport = Pick<SandboxReport, 'refused' | 'unreachable'>;

export const OTHER_HOSTS = '(other hosts)';

export class ProxyTally {
  private readonly refused = new Map<string, number>();
  private refusedElsewhere = 0;
  private readonly unreachable = new Map<string, string>();
  private unreachableElsewhere = 0;

  constructor(private readonly maxHosts: number) {}

  refuse(host: string): void {
    const count = this.refused.get(host);
    if (count !== undefined) this.refused.set(host, count + 1);
    else if (this.refused.size < this.maxHosts) this.refused.set(host, 1);
    else this.refusedElsewhere++;
  }

  /** The host's latest attempt failed: it is unreachable until an attempt succeeds. */
  fail(host: string, error: string): void {
    if (this.unreachable.has(host) || this.unreachable.size < this.maxHosts) this.unreachable.set(host, error);
    else this.unreachableElsewhere++;
  }

  /** A connection to the host succeeded: an earlier failure was transient, not the step's problem. */
  reached(host: string): void {
    this.unreachable.delete(host);
  }

  report(): ProxyReport {
    const refused = [...this.refused].map(([host, count]) => ({ host, count }));
    if (this.refusedElsewhere > 0) refused.push({ host: OTHER_HOSTS, count: this.refusedElsewhere });
    const unreachable = [...this.unreachable].map(([host, error]) => ({ host, error }));
    if (this.unreachableElsewhere > 0) {
      unreachable.push({ host: OTHER_HOSTS, error: `${this.unreachableElsewhere} failed connection(s) to hosts past the first ${this.maxHosts}` });
    }
    return { refused, unreachable };
  }
}
