// The sandbox of one worker attempt: the parts (proxy.ts, fence.ts, limits.ts) put together
// for what the task asks (SandboxRequest), and what was done reported (SandboxReport).
//
//   open:     the proxy starts in the worker's process (allow = the step's list, plus the hosts
//             the worker job's own credential switches select); the fence is probed — in force,
//             every process of the attempt runs as the agent's user under the step's limits;
//             otherwise each protection is listed as missing, with why, and `sandbox: required`
//             refuses the attempt before anything starts.
//             Fenced, the agent's fresh home gets the backend's login files from the worker's
//             (login-files.ts), and nothing else of it.
//   during:   `fence` goes to runProcess (the one door every process passes); `folder` makes the
//             worker's temp folders reachable by the agent's user and no one else; `limit` reads
//             a finished process for the limit that ended it.
//   finish:   the checkout handed back to the worker (modes the agent set), the proxy closed,
//             the packet filter's refusals read, the report built.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PROTECTIONS, type Protection, type SandboxReport, type SandboxRequest } from '../../engine/sandbox.ts';
import { covers, matchesHost } from '../../manifest/host-patterns.ts';
import { credentialHosts, modelHosts } from '../../manifest/network.ts';
import type { AgentSpec, Backend } from '../../manifest/types.ts';
import type { ProcessFence, ProcessResult } from '../process.ts';
import { FENCE_PROTECTIONS, fencedCommand, probeFence, readRefusals, sweepCommand, type FenceProbe, type FenceState } from './fence.ts';
import { limitHit, limitReason, limitWatch, type LimitHit } from './limits.ts';
import { closeHome } from './setup.ts';
import { checkLoginFilePath, handOverLoginFiles, WRITE_LOGIN_FILE } from './login-files.ts';
import { startProxy, type EgressProxy, type ProxyOptions } from './proxy.ts';
import { proxyEnv } from './proxy-env.ts';
import type { Refusal } from './ruleset.ts';
import type { Resolve } from './upstream.ts';

export interface AttemptSandboxOptions {
  request: SandboxRequest;
  /** The agent's spec (its model API is what it needs); null for a run step's command. */
  agent: AgentSpec | null;
  /** The worker job's environment: its credential switches (Bedrock, Vertex…) select hosts too. */
  workerEnv: NodeJS.ProcessEnv;
  /** What the agent's CLI needs in its environment behind the proxy (AgentBackend.behindProxy). */
  backendEnv?: Record<string, string>;
  /** The CLI's stored logins, relative to HOME (AgentBackend.loginFiles): fenced, they are copied from the worker's HOME to the agent's. */
  loginFiles?: readonly string[];
  /** A local run: the fence only as root on a machine with a fence record; the rest is missing. */
  local?: boolean;
  /** The setup step's record (default /etc/baton/fence.json). */
  fenceStatePath?: string;
  /** Tests: the proxy's resolver, and the names it may connect to loopback (their stand-ins). */
  resolve?: Resolve;
  internalHosts?: readonly string[];
  /** The model credentials the proxy holds and where each API's requests go (proxy-keys.ts); tests' certificate authority. */
  models?: ProxyOptions['models'];
}

/** What the worker keeps of one attempt's sandbox. */
export interface AttemptSandbox {
  /** `sandbox: required` with a protection missing: why the attempt must not start; else null. */
  refusal: string | null;
  /** Processes run as the agent's user. */
  fenced: boolean;
  /** Added to every process's environment: the proxy's variables and the CLI's. */
  env: Record<string, string>;
  /** The proxy's `http://127.0.0.1:<port>` (its model path serves the held keys); null when it did not start. */
  proxyUrl: string | null;
  /** For runProcess; undefined when the fence is not in force. */
  fence: ProcessFence | undefined;
  /** A fresh folder under `parent` the agent's user can reach (by its path: nobody can list it). */
  folder(parent: string, prefix: string): string;
  /** Removes a folder made by `folder`, whatever the agent made in it. */
  removeFolder(dir: string): void;
  /** Gives the worker's group back what the agent made in `dir` with modes that keep it out (the checkout, before its changes are listed). */
  handBack(dir: string): string | null;
  /** The limit that ended a finished process, as the attempt's failure reason; null when none did. */
  limit(r: ProcessResult): string | null;
  /** The agent's model API hosts the proxy could not reach, for the failure message; null when none. */
  unreachableModelApi(): string | null;
  /** Closes the proxy and reports. Transcript lines (refusals that could not be read…) go to `notes`. */
  finish(notes: string[]): Promise<SandboxReport>;
  /** Closes the proxy (idempotent). */
  close(): Promise<void>;
}

/** How each protection reads in a failure message. */
export const PROTECTION_NAMES: Record<Protection, string> = {
  'egress-proxy': 'the egress proxy',
  'packet-filter': 'the packet filter',
  'agent-user': "the agent's own user",
  'resource-limits': 'the resource limits',
};

export const LOCAL_MODE = 'local mode';

/** Why a step that requires the sandbox did not start: each missing protection, one reason said once for all it explains. */
export function requiredRefusal(missing: SandboxReport['missing']): string {
  const byReason = new Map<string, string[]>();
  for (const m of missing) byReason.set(m.reason, [...(byReason.get(m.reason) ?? []), PROTECTION_NAMES[m.protection]]);
  const and = (names: string[]): string => (names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : names[0]!);
  const parts = [...byReason].map(([reason, names]) => `${and(names)} (${reason})`);
  return `the step requires the sandbox (\`sandbox: required\`), and ${missing.length === 1 ? 'this protection is' : 'these protections are'} not in force here: ${parts.join('; ')}; the agent was not started`;
}

/**
 * The protections a local run gets on this machine (`baton doctor`): the proxy always, the
 * fence only as root on a machine whose fence record the setup step wrote.
 */
export function localProtections(env: NodeJS.ProcessEnv, fenceStatePath?: string): Pick<SandboxReport, 'enforced' | 'missing'> {
  const probe = fenceProbe({ local: true, workerEnv: env, ...(fenceStatePath !== undefined && { fenceStatePath }) });
  return { enforced: PROTECTIONS.filter((p) => p === 'egress-proxy' || probe.enforced.includes(p)), missing: probe.missing };
}

/** The fence as this machine has it: probed on GitHub; in a local run only as root with a fence record. */
function fenceProbe(o: Pick<AttemptSandboxOptions, 'local' | 'workerEnv' | 'fenceStatePath'>): FenceProbe {
  const root = process.getuid?.() === 0;
  if (o.local && !root) return { enforced: [], missing: FENCE_PROTECTIONS.map((protection) => ({ protection, reason: LOCAL_MODE })), state: null };
  const probe = probeFence({ ...(o.fenceStatePath !== undefined && { statePath: o.fenceStatePath }), root, env: o.workerEnv });
  if (!o.local || probe.state) return probe;
  return { ...probe, missing: probe.missing.map((m) => ({ ...m, reason: `${LOCAL_MODE}: ${m.reason}` })) };
}

/** The packet filter's refusals so far (counters live for the whole job: the attempt's are the difference). */
function refusalsNow(state: FenceState): Map<string, number> {
  return new Map(readRefusals(state).map((r: Refusal) => [r.host, r.count]));
}

/** Refusals kept per list in the report (the proxy keeps 100 hosts, the filter 4096 addresses). */
const MAX_REFUSED = 50;

export async function openAttemptSandbox(o: AttemptSandboxOptions): Promise<AttemptSandbox> {
  const { request } = o;
  // Before anything starts: a login path that could leave HOME is baton's own mistake.
  (o.loginFiles ?? []).forEach(checkLoginFilePath);
  const backend: Backend = o.agent?.uses ?? 'command';
  const allow = request.network.mode === 'off' ? [] : [...request.network.allow, ...credentialHosts(backend, o.workerEnv)];
  const internal = o.internalHosts ?? [];
  const missing: SandboxReport['missing'] = [];
  // The fence first: the packet filter admits the agent to the proxy's port the setup recorded, so
  // the proxy listens there (any free port without the fence).
  const probe = fenceProbe(o);
  const state = probe.state;
  let proxy: EgressProxy | null = null;
  try {
    proxy = await startProxy({
      allowed: (host, port) => matchesHost(allow, host, port),
      ...(state && { port: state.proxyPort }),
      ...(o.resolve && { resolve: o.resolve }),
      ...(internal.length && { allowInternalAddresses: (host: string) => internal.includes(host) }),
      ...(o.models && { models: o.models }),
    });
  } catch (err) {
    missing.push({ protection: 'egress-proxy', reason: `the proxy could not start${state ? ` on the port the packet filter admits (${state.proxyPort})` : ''}: ${(err as Error).message}` });
  }
  missing.push(...probe.missing);
  // The fence is all or nothing: an agent user without the filter or the limits is not run as.
  const fenced = state !== null && probe.missing.length === 0;
  const root = process.getuid?.() === 0;
  const enforced = PROTECTIONS.filter((p) => !missing.some((m) => m.protection === p));

  const refusal = request.required && missing.length > 0 ? requiredRefusal(missing) : null;

  let before = new Map<string, number>();
  const notes: string[] = [];
  if (fenced) {
    // What steps after the setup left in the worker's home with modes open to all is closed
    // before the agent starts, as the setup closed what was there (setup.ts closeHome).
    closeHome(o.workerEnv.HOME, [state.workspace, state.tools ?? state.workspace]);
    try {
      before = refusalsNow(state);
    } catch (err) {
      notes.push(`baton: ${(err as Error).message}`);
    }
  }

  /** Runs a short command as the agent's user (its login files, the attempt's folders, the hand-back), `stdin` its input; the error text or null. */
  const asAgent = (argv: string[], stdin?: Buffer): string | null => {
    const f = fencedCommand(argv, { user: state!.user, limits: { cpuSeconds: null, memoryMb: null, processes: null }, env: { PATH: o.workerEnv.PATH ?? process.env.PATH }, root });
    const r = spawnSync(f.argv[0]!, f.argv.slice(1), { env: f.env, encoding: 'utf8', timeout: 60_000, ...(stdin !== undefined && { input: stdin }) });
    return r.status === 0 ? null : (r.error?.message ?? r.stderr ?? '').trim().split('\n')[0] || `exit ${r.status ?? r.signal}`;
  };
  // The agent's home is fresh and empty: a CLI that signs in by a stored login finds it there
  // only when handed over. Not when the attempt is refused: nothing of the agent's runs then.
  if (fenced && refusal === null) {
    notes.push(...handOverLoginFiles(o.loginFiles ?? [], o.workerEnv.HOME, (file, content) => asAgent(['/bin/sh', '-c', WRITE_LOGIN_FILE, 'baton-login', file], content)));
  }
  const sweep = (): void => {
    try {
      const argv = sweepCommand({ user: state!.user, env: o.workerEnv, root });
      spawnSync(argv[0]!, argv.slice(1), { stdio: 'ignore', timeout: 10_000 });
    } catch {
      // a sweep that cannot start leaves what the runner ends at the end of the job
    }
  };
  const fence: ProcessFence | undefined = fenced
    ? {
        wrap: (argv, env) => fencedCommand(argv, { user: state.user, limits: request.limits, env, root }),
        sweep,
      }
    : undefined;

  const env: Record<string, string> = proxy ? { ...proxyEnv(proxy.url), ...(o.backendEnv ?? {}) } : {};
  let hit: LimitHit | null = null;
  // What the agent's processes hold, read while the attempt runs: a memory or process limit
  // leaves no trace in the CLI's own words.
  const watch = fenced ? limitWatch(state.user.uid, request.limits) : null;
  let closed = false;
  const close = async (): Promise<void> => {
    watch?.stop();
    if (closed || !proxy) return;
    closed = true;
    await proxy.close();
  };

  const needed = o.agent ? [...modelHosts(o.agent), ...credentialHosts(backend, o.workerEnv)] : [];

  return {
    refusal,
    fenced,
    env,
    proxyUrl: proxy?.url ?? null,
    fence,
    folder(parent, prefix) {
      mkdirSync(parent, { recursive: true });
      const outer = mkdtempSync(join(parent, prefix));
      if (!fenced) return outer;
      // The outer folder: others may pass through it, not list it; the inner one has a name
      // nobody can guess and is open to the agent's user, which is told its path. Files the
      // worker writes there are read by the agent as "other"; what the agent writes is
      // read back the same way (its umask is 002).
      chmodSync(outer, 0o711);
      const inner = join(outer, randomBytes(16).toString('hex'));
      mkdirSync(inner);
      chmodSync(inner, 0o777);
      return inner;
    },
    removeFolder(dir) {
      // What the agent made inside is its own: opened by it first, so the worker can remove it.
      if (fenced) asAgent(['chmod', '-R', 'a+rwX', '--', dir]);
      rmSync(fenced ? join(dir, '..') : dir, { recursive: true, force: true });
    },
    handBack(dir) {
      if (!fenced) return null;
      const error = asAgent(['chmod', '-R', 'g+rwX', '--', dir]);
      return error && `the agent's files in ${dir} could not be handed back to the worker: ${error}`;
    },
    limit(r) {
      if (!fenced) return null;
      const h = limitHit(r, request.limits, watch?.take());
      if (h === null) return null;
      hit = h.limit;
      return limitReason(h, request.limits);
    },
    unreachableModelApi() {
      if (!proxy || !needed.length) return null;
      const down = proxy.report().unreachable.filter((u) => covers(needed, u.host));
      return down.length ? down.map((u) => `${u.host} (${u.error})`).join(', ') : null;
    },
    async finish(out) {
      out.push(...notes);
      const report = proxy ? proxy.report() : { refused: [], unreachable: [] };
      await close();
      const refused = report.refused.slice(0, MAX_REFUSED);
      if (fenced) {
        try {
          const filtered = [...refusalsNow(state)].map(([host, count]) => ({ host, count: count - (before.get(host) ?? 0) })).filter((r) => r.count > 0);
          refused.push(...filtered.sort((a, b) => b.count - a.count).slice(0, MAX_REFUSED));
        } catch (err) {
          out.push(`baton: ${(err as Error).message}`);
        }
      }
      return { enforced, missing, refused, unreachable: report.unreachable.slice(0, MAX_REFUSED), limit: hit };
    },
    close,
  };
}
