// The agent sandbox's contract between its parts (types only, so the engine can carry them
// without importing the agents' code): what a step asks for (resolved from the
// manifest and carried in the worker's task), and what the worker reports it enforced and
// refused (carried in the worker's result, shown in the step's record).
//
//   manifest (agents.<name>.network, steps.<id>.network, sandbox) → SandboxRequest (task)
//   worker: proxy (allow-list by host) + fence (own user, packet filter, limits) → SandboxReport (result)

/**
 * Hosts an agent may reach. `off`: nothing at all (not even its model API); `allow`: only the
 * hosts matching one of `allow` (host-patterns.ts), through the proxy.
 */
export interface EgressPolicy {
  mode: 'off' | 'allow';
  /** Host patterns: `api.example.com`, `*.example.com` (subdomains only), optional `:port`. */
  allow: string[];
}

export interface ResourceLimits {
  /** CPU seconds for the agent's processes together (RLIMIT_CPU per process where only prlimit is available). */
  cpuSeconds: number | null;
  /** Address space / memory per process, in MiB. */
  memoryMb: number | null;
  /** Processes the agent's user may have at once. */
  processes: number | null;
}

/** What one attempt asks of the sandbox: part of the worker's task. */
export interface SandboxRequest {
  network: EgressPolicy;
  limits: ResourceLimits;
  /** `sandbox: required`: the attempt fails instead of running without every protection below. */
  required: boolean;
  /**
   * The attempt reads a fork's code: the worker gives the agent's processes none of the job's
   * secrets but the backend's own credentials (agents/fork-environment.ts). Absent otherwise.
   */
  fork?: true;
}

/** The protections the worker can put in force, each separately. */
export type Protection =
  /** The agent's HTTP(S) traffic goes through baton's allow-listing proxy (HTTPS_PROXY & co.). */
  | 'egress-proxy'
  /** Packets of the agent's user that do not go to the proxy are dropped (nftables): a CLI that ignores the proxy, raw sockets, DNS. */
  | 'packet-filter'
  /** The agent runs as an unprivileged user of its own: it writes only its checkout, reads no other process's environment. */
  | 'agent-user'
  /** CPU, memory and process limits on the agent's processes. */
  | 'resource-limits';

export const PROTECTIONS: readonly Protection[] = ['egress-proxy', 'packet-filter', 'agent-user', 'resource-limits'];

/** What the worker did for one attempt: part of the worker's result and the step's record. */
export interface SandboxReport {
  /** Protections in force for the whole attempt. */
  enforced: Protection[];
  /** Protections not in force, each with why (a self-hosted runner without sudo, macOS, local mode…). */
  missing: { protection: Protection; reason: string }[];
  /** Connections refused, by host (the proxy) or by address (the packet filter), with how many times. */
  refused: { host: string; count: number }[];
  /** Allowed hosts the proxy could not reach (DNS failure, connection refused…): the model API among them fails the step. */
  unreachable: { host: string; error: string }[];
  /** The limit the agent ran into, when one ended the attempt: a resource limit of its processes, or `cost` (the proxy refused its model requests at the attempt's cost cap). */
  limit: 'cpu' | 'memory' | 'processes' | 'cost' | null;
  /**
   * Where the agent's model credential was: in the egress proxy (the agent held a placeholder),
   * or in the agent, with why (a CLI the proxy cannot stand in for, a stored login, no fence).
   * Absent when the attempt had no model credential (a run step, a `command` agent).
   */
  modelKey?: { in: 'proxy' } | { in: 'agent'; why: string };
}
