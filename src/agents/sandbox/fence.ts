// The Linux fence that puts the agent below the CLI: it runs as a user of its own
// (`baton-agent`, made by the setup step, setup.ts), under resource limits (limits.ts), and a
// packet filter refuses every packet of that user that does not go to loopback (ruleset.ts).
//
//   worker as root (tests, self-hosted root):  setpriv (uid, gid, groups, no caps, no new privs)
//   worker as `runner` (GitHub-hosted):         sudo -n -u baton-agent (the setup step's rule)
//   then, as the agent:  [setpriv --no-new-privs] prlimit <limits> -- sh -c 'umask 002; exec "$@"' -- <argv>
//
// Secrets never go in argv (any process reads /proc/<pid>/cmdline): the environment carries
// them — sudo keeps the variables named by --preserve-env (the sudoers rule has SETENV), and
// setpriv keeps the whole environment. Once the agent's uid differs from the worker's, the
// kernel refuses it the worker's /proc/<pid>/environ (ptrace access mode) and the right to
// signal the worker's processes. umask 002: files the agent makes in the checkout (whose
// folders carry the worker's group, setgid) stay writable for the worker.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Protection, ResourceLimits } from '../../engine/sandbox.ts';
import { prlimitOptions } from './limits.ts';
import { NFT_TABLE, parseRefusals, type Refusal } from './ruleset.ts';

/** The agent's user, as the setup step creates it. */
export const AGENT_USER = 'baton-agent';

/** What the setup step wrote (root-owned, so the agent cannot change it): the worker reads it. */
export const FENCE_STATE = '/etc/baton/fence.json';

export interface FenceUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

export interface FenceState {
  /** 2: the record names the proxy's port (the packet filter admits the agent to it alone). */
  version: 2;
  user: FenceUser;
  /** The worker's user, whom the sudoers rule lets run commands as the agent. */
  runner: string;
  /** The nft binary the sudoers rule lets the worker run (`-j list table inet baton` only). */
  nft: string;
  workspace: string;
  /** The loopback port the egress proxy listens on: the only one of another user the packet filter lets the agent reach. */
  proxyPort: number;
  /** Protections the setup step could not put in place, each with why (a program missing from the image). */
  missing?: { protection: Protection; reason: string }[];
  /** Where mode install-clis puts the agent CLIs (absent in records of older setups). */
  tools?: string;
}

export interface FenceOptions {
  user: FenceUser;
  limits: ResourceLimits;
  /** The agent's environment: secrets included; it never reaches argv. */
  env: NodeJS.ProcessEnv;
  /** Whether the worker runs as root (default: its uid is 0). */
  root?: boolean;
}

export interface Fenced {
  argv: string[];
  /** What to spawn argv with: `env` with HOME, USER and LOGNAME the agent's. */
  env: Record<string, string>;
}

const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** A program's absolute path, from PATH then the system folders; null when missing. */
export function findProgram(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of [...(env.PATH ?? '').split(delimiter), ...SYSTEM_PATH]) {
    if (!dir.startsWith('/')) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

function program(name: string, env: NodeJS.ProcessEnv): string {
  const p = findProgram(name, env);
  if (!p) throw new Error(`${name} is not installed; the sandbox's fence needs it (util-linux${name === 'sudo' ? ', sudo' : ''})`);
  return p;
}

/** Names sudo can be asked to keep: a name with a comma or `=` would split its list. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The command that runs `argv` as the agent's user under `limits`. */
export function fencedCommand(argv: string[], o: FenceOptions): Fenced {
  if (!argv.length) throw new Error('fencedCommand needs a command');
  const root = o.root ?? process.getuid?.() === 0;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(o.env)) if (v !== undefined && ENV_NAME.test(k)) env[k] = v;
  Object.assign(env, { HOME: o.user.home, USER: o.user.name, LOGNAME: o.user.name });
  const tail = [program('prlimit', o.env), ...prlimitOptions(o.limits), '--', '/bin/sh', '-c', 'umask 002 && exec "$@"', 'baton-fence', ...argv];
  const setpriv = program('setpriv', o.env);
  const launch = root
    ? [setpriv, `--reuid=${o.user.uid}`, `--regid=${o.user.gid}`, '--init-groups', '--inh-caps=-all', '--no-new-privs', '--']
    : // After sudo the agent sets no_new_privs itself: no setuid program raises it again.
      [program('sudo', o.env), '-n', '-u', o.user.name, `--preserve-env=${Object.keys(env).sort().join(',')}`, '--', setpriv, '--no-new-privs', '--'];
  return { argv: [...launch, ...tail], env };
}

/**
 * Kills every process of the agent's user: what the agent left running, in its process
 * group or not (setsid, daemons). The worker cannot signal another user's processes, so the
 * kill runs as the agent's user; kill(-1) reaches all of that user's processes but itself.
 */
export function sweepCommand(o: Pick<FenceOptions, 'user' | 'env' | 'root'>): string[] {
  const root = o.root ?? process.getuid?.() === 0;
  const kill = ['/bin/sh', '-c', 'kill -s KILL -- -1 2>/dev/null; exit 0'];
  return root
    ? [program('setpriv', o.env), `--reuid=${o.user.uid}`, `--regid=${o.user.gid}`, '--clear-groups', '--', ...kill]
    : [program('sudo', o.env), '-n', '-u', o.user.name, '--', ...kill];
}

/** The setup step's record, or null when the step did not run here. */
export function readFenceState(path: string = FENCE_STATE): FenceState | null {
  if (!existsSync(path)) return null;
  const s = JSON.parse(readFileSync(path, 'utf8')) as FenceState;
  if (s.version !== 2 || typeof s.user?.uid !== 'number' || typeof s.user?.name !== 'string' || !Number.isInteger(s.proxyPort)) throw new Error(`${path} is not a baton fence record of this version`);
  return s;
}

/** `nft -j list table inet baton`, as root or through the setup step's sudo rule. */
function listTable(state: FenceState, root: boolean): { ok: true; json: string } | { ok: false; error: string } {
  const argv = [state.nft, '-j', 'list', 'table', 'inet', NFT_TABLE];
  const cmd = root ? argv : [findProgram('sudo') ?? 'sudo', '-n', ...argv];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8', timeout: 10_000 });
  if (r.status === 0) return { ok: true, json: r.stdout };
  return { ok: false, error: (r.error?.message ?? r.stderr ?? '').trim().split('\n')[0] || `exit ${r.status}` };
}

/** Destinations the packet filter refused to the agent, with how many packets. */
export function readRefusals(state: FenceState, root = process.getuid?.() === 0): Refusal[] {
  const listed = listTable(state, root);
  if (!listed.ok) throw new Error(`baton could not read the packet filter's refusals: ${listed.error}`);
  return parseRefusals(listed.json);
}

/** True when the table's output chain sends the packets of `uid` to the agent's chain (the rule ruleset.ts writes). */
export function filtersUid(json: string, uid: number): boolean {
  const items = (JSON.parse(json) as { nftables?: unknown[] }).nftables ?? [];
  return items.some((item) => {
    const rule = (item as { rule?: { chain?: string; expr?: unknown[] } }).rule;
    if (rule?.chain !== 'output') return false;
    const expr = rule.expr ?? [];
    const matchesUid = expr.some((e) => {
      const m = (e as { match?: { op?: string; left?: { meta?: { key?: string } }; right?: unknown } }).match;
      return m?.op === '==' && m.left?.meta?.key === 'skuid' && m.right === uid;
    });
    return matchesUid && expr.some((e) => (e as { jump?: { target?: string } }).jump?.target === 'agent');
  });
}

export interface FenceProbe {
  /** Of the fence's protections (not the proxy's), those in force. */
  enforced: Protection[];
  missing: { protection: Protection; reason: string }[];
  /** The setup step's record, when it ran. */
  state: FenceState | null;
}

export const FENCE_PROTECTIONS: readonly Protection[] = ['agent-user', 'packet-filter', 'resource-limits'];

export interface ProbeOptions {
  platform?: NodeJS.Platform;
  statePath?: string;
  root?: boolean;
  env?: NodeJS.ProcessEnv;
}

/**
 * Which of the fence's protections are in force on this machine, each missing one with why.
 * Each is tried, not assumed: a command is started as the agent and must report the agent's
 * uid and limits, and the filter is read back from the kernel.
 */
export function probeFence(o: ProbeOptions = {}): FenceProbe {
  const platform = o.platform ?? process.platform;
  const root = o.root ?? process.getuid?.() === 0;
  const env = o.env ?? process.env;
  const all = (reason: string, state: FenceState | null = null): FenceProbe => ({ enforced: [], missing: FENCE_PROTECTIONS.map((protection) => ({ protection, reason })), state });
  if (platform !== 'linux') return all(`not Linux (${platform}): the fence needs Linux users, nftables and rlimits`);
  let state: FenceState | null;
  try {
    state = readFenceState(o.statePath);
  } catch (err) {
    return all((err as Error).message);
  }
  if (!state) return all(`the sandbox setup step did not run on this machine (no ${o.statePath ?? FENCE_STATE}); the worker workflow \`baton init\` writes runs it on GitHub-hosted Linux runners`);

  const enforced: Protection[] = [];
  const missing: FenceProbe['missing'] = [];
  // One start as the agent checks the user, the way to become it, and the limits.
  // A CPU limit only: prlimit may lower limits, not raise them past the user's hard limits.
  const limits: ResourceLimits = { cpuSeconds: 3600, memoryMb: null, processes: null };
  let started: string;
  try {
    const f = fencedCommand(['/bin/sh', '-c', 'id -u; ulimit -t'], { user: state.user, limits, env, root });
    const r = spawnSync(f.argv[0]!, f.argv.slice(1), { env: f.env, encoding: 'utf8', timeout: 10_000 });
    const [uid, cpu] = r.stdout.trim().split('\n');
    started =
      r.status !== 0
        ? `starting a command as ${state.user.name} failed: ${(r.error?.message ?? r.stderr).trim().split('\n')[0] || `exit ${r.status}`}${root ? '' : ` (no sudo rule lets this user run commands as ${state.user.name}?)`}`
        : uid !== String(state.user.uid)
          ? `a command started as ${state.user.name} ran as uid ${uid}, not ${state.user.uid}`
          : cpu !== '3600'
            ? `the limits did not reach the agent (its CPU limit was ${cpu})`
            : '';
  } catch (err) {
    started = (err as Error).message;
  }
  if (started) missing.push({ protection: 'agent-user', reason: started }, { protection: 'resource-limits', reason: `${started}; the limits are set where the agent's user starts` });
  else enforced.push('agent-user', 'resource-limits');

  // What the setup recorded as missing says why better than a failed read of what is not there.
  const recorded = state.missing?.find((m) => m.protection === 'packet-filter')?.reason;
  const listed = recorded ? null : listTable(state, root);
  if (!listed) missing.push({ protection: 'packet-filter', reason: `the setup step could not put it in place: ${recorded}` });
  else if (!listed.ok) missing.push({ protection: 'packet-filter', reason: `the packet filter (nft table inet ${NFT_TABLE}) could not be read: ${listed.error}` });
  else if (!filtersUid(listed.json, state.user.uid)) missing.push({ protection: 'packet-filter', reason: `nft table inet ${NFT_TABLE} does not filter uid ${state.user.uid}` });
  else enforced.push('packet-filter');
  return { enforced: FENCE_PROTECTIONS.filter((p) => enforced.includes(p)), missing, state };
}
