// The fence's setup, run once per job as root before sudo is dropped (the Action's mode
// `sandbox-setup`): the agent's user, the sudoers rule that lets the worker start processes
// as that user (and read the packet filter) and nothing else, the packet filter, and the
// permissions that give the agent its checkout and nothing else of the worker's.
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type { Protection } from '../../engine/sandbox.ts';
import { AGENT_USER, FENCE_PROTECTIONS, findProgram, type FenceState, type FenceUser } from './fence.ts';
import { fenceRuleset } from './ruleset.ts';

export interface SetupOptions {
  /** Root of the user database and /etc files written: '/' in production, a folder in tests. */
  prefix?: string;
  /** The worker's user (GitHub-hosted: `runner`). */
  runnerUser: string;
  /** The checkout the agent works in. */
  workspace: string;
  /** The worker's temp folder (RUNNER_TEMP): made the worker's alone. */
  tempDir: string;
  /** The agent's HOME (created fresh, its own). Default /home/baton-agent. */
  home?: string;
  /**
   * Where the agent CLIs are installed after the sudo drop (mode install-clis): made the
   * runner's, mode 0755, so the agent can run them but not change them. Default: next to the
   * temp folder, `<RUNNER_TEMP>/../baton-clis` (RUNNER_TEMP itself is closed to the agent).
   */
  toolDir?: string;
  /** The egress proxy's loopback port (default: drawn by pickProxyPort). */
  proxyPort?: number;
}

/**
 * The egress proxy's port for the job: the packet filter admits the agent to it and to no other
 * user's listener, so it is fixed here, before the filter is loaded. Drawn below Linux's
 * ephemeral range (32768–60999 by default), where the kernel never hands a port out by itself,
 * and not one a socket holds now (a `services:` container mapped to localhost started before the
 * steps): only a program started later that asks for it by number could hold it first, and the
 * proxy then does not start (reported missing; `sandbox: required` refuses).
 */
export function pickProxyPort(taken: ReadonlySet<number> = portsInUse()): number {
  for (;;) {
    const port = 20_000 + randomInt(12_000);
    if (!taken.has(port)) return port;
  }
}

/** Local TCP ports sockets hold now, from /proc/net/tcp and tcp6 (`0100007F:1F90` is port 8080). */
export function portsInUse(files: readonly string[] = ['/proc/net/tcp', '/proc/net/tcp6']): Set<number> {
  const ports = new Set<number>();
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue; // no IPv6, or no /proc: nothing to avoid there
    }
    for (const line of text.split('\n').slice(1)) {
      const local = line.trim().split(/\s+/)[1];
      const port = local ? parseInt(local.slice(local.lastIndexOf(':') + 1), 16) : NaN;
      if (Number.isInteger(port)) ports.add(port);
    }
  }
  return ports;
}

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

function passwd(prefix: string): PasswdEntry[] {
  return readFileSync(join(prefix, 'etc/passwd'), 'utf8')
    .split('\n')
    .map((l) => l.split(':'))
    .filter((f) => f.length >= 7)
    .map((f) => ({ name: f[0]!, uid: Number(f[2]), gid: Number(f[3]), home: f[5]! }));
}

function entry(prefix: string, name: string): PasswdEntry | undefined {
  return passwd(prefix).find((e) => e.name === name);
}

function run(cmd: string, args: string[]): void {
  try {
    execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${(e.stderr?.toString() || e.message).trim()}`, { cause: err });
  }
}

/** Why a program the setup uses is absent, in the words of the job log. */
function notInstalled(name: string, pkg: string): string {
  return `${name} is not installed on this runner (package ${pkg})`;
}

/** The sudoers drop-in: the worker may become the agent (with the environment it passes) and list the filter; nothing else. */
export function sudoersRule(runner: string, nft: string | null): string {
  if (!/^[a-z_][a-z0-9_-]*$/i.test(runner)) throw new Error(`the runner user name ${JSON.stringify(runner)} is not a plain user name`);
  return [
    '# Written by baton\'s sandbox setup (mode sandbox-setup). The worker may start processes as',
    `# ${AGENT_USER}, passing them their environment (SETENV; secrets never go on a command line),`,
    '# and read the packet filter; it may not become root.',
    // sudo replaces PATH with secure_path otherwise: the agent's CLIs live on the worker's PATH.
    `Defaults>${AGENT_USER} !secure_path`,
    `${runner} ALL=(${AGENT_USER}) NOPASSWD:SETENV: ALL`,
    // Without nft there is no filter to list, and no rule naming a program that is not there.
    ...(nft ? [`${runner} ALL=(root) NOPASSWD: ${nft} -j list table inet baton`] : []),
    '',
  ].join('\n');
}

/** Drops other users' read and write bits (and adds traverse when `traverse`); symlinks are left alone. */
function closeToOthers(path: string, traverse: boolean): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  chmodSync(path, (st.mode & 0o7770) | (traverse && st.isDirectory() ? 0o001 : 0));
}

/** The folders from `/` down to `path`'s parent. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let d = dirname(path); ; d = dirname(d)) {
    out.unshift(d);
    if (dirname(d) === d) return out;
  }
}

/**
 * Closes the worker's home to other users, but for the way to `keep` (the checkout, the CLIs):
 * the home itself only traversable when one lies inside it, every other entry neither readable
 * nor listable. The setup does it as root; each fenced attempt does it again as the worker
 * (attempt.ts), for what later steps of the job left there with modes open to all. An entry the
 * caller may not change (not its own) is left as it is.
 */
export function closeHome(home: string | undefined, keep: string[]): void {
  if (!home || home === '/' || !existsSync(home)) return;
  const tryClose = (p: string, traverse: boolean): void => {
    try {
      closeToOthers(p, traverse);
    } catch {
      // not the caller's to change
    }
  };
  tryClose(home, keep.some((k) => inside(k, home)));
  for (const name of readdirSync(home)) {
    const p = join(home, name);
    if (!keep.some((k) => inside(k, p))) tryClose(p, false);
  }
}

function inside(child: string, parent: string): boolean {
  return child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
}


export type Missing = { protection: Protection; reason: string }[];

/** What the setup writes to fence.json: the fence's record, with the CLIs' folder and what is missing always set. */
export type SetupState = FenceState & Required<Pick<FenceState, 'tools' | 'missing'>>;

export interface SetupResult {
  /** null when no agent user could be made: no fence.json is written, and the worker runs unfenced. */
  state: SetupState | null;
  /** Protections the setup could not put in place, each with why (also in `state`). */
  missing: Missing;
  /** Where the record, the ruleset and the sudoers rule were written (null: not written). */
  files: { state: string; ruleset: string | null; sudoers: string | null };
}

/**
 * Sets the fence up. A program missing from the runner's image (nft, useradd, sudo, visudo)
 * is not an error: what it would have put in place is reported missing, with why, and the
 * rest is set up — the worker's probe then says the same, and `sandbox: required` refuses.
 * fence.json is written last, so a setup that throws half-way leaves none: the worker then
 * runs unfenced, as where the step never ran.
 */
export function setupFence(o: SetupOptions): SetupResult {
  if (process.platform !== 'linux') throw new Error(`the sandbox setup needs Linux, not ${process.platform}`);
  if (process.getuid?.() !== 0) throw new Error('the sandbox setup must run as root (in the worker workflow: `sudo -E "$BATON_NODE" "$BATON_ENTRY"`, before sudo is dropped)');
  const prefix = resolve(o.prefix ?? '/');
  const workspace = resolve(o.workspace);
  const tempDir = resolve(o.tempDir);
  const home = resolve(o.home ?? `/home/${AGENT_USER}`);
  const tools = resolve(o.toolDir ?? join(dirname(tempDir), 'baton-clis'));
  const runner = entry(prefix, o.runnerUser);
  if (!runner) throw new Error(`the runner user ${JSON.stringify(o.runnerUser)} is not in ${join(prefix, 'etc/passwd')}`);
  if (!statSync(workspace).isDirectory()) throw new Error(`the workspace ${workspace} is not a folder`);
  if (inside(workspace, tempDir) || inside(home, workspace)) throw new Error(`the workspace ${workspace}, the temp folder ${tempDir} and the agent's home ${home} must not hold one another`);
  // The CLIs' folder: not where the agent writes (its checkout, its home), not in the closed temp folder.
  for (const [what, dir] of [['workspace', workspace], ['temp folder', tempDir], ["agent's home", home]] as const) {
    if (inside(tools, dir) || inside(dir, tools)) throw new Error(`the agent CLIs' folder ${tools} and the ${what} ${dir} must not hold one another`);
  }

  const dir = join(prefix, 'etc/baton');
  const stateFile = join(dir, 'fence.json');
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  rmSync(stateFile, { force: true });
  const missing: Missing = [];
  const lack = (protections: readonly Protection[], reason: string): void => {
    for (const protection of protections) if (!missing.some((m) => m.protection === protection)) missing.push({ protection, reason });
  };

  // The user: no login shell, a group of its own, a fresh home nobody else reads.
  if (!entry(prefix, AGENT_USER)) {
    const useradd = findProgram('useradd');
    if (!useradd) {
      lack(FENCE_PROTECTIONS, `${notInstalled('useradd', 'passwd')}: the agent gets no user of its own and runs as the worker's user`);
      return { state: null, missing, files: { state: stateFile, ruleset: null, sudoers: null } };
    }
    run(useradd, [...(prefix === '/' ? [] : ['--prefix', prefix]), '--system', '--user-group', '--shell', '/usr/sbin/nologin', '--home-dir', home, '--no-create-home', AGENT_USER]);
  }
  const agent = entry(prefix, AGENT_USER)!;
  if (agent.uid === 0 || agent.uid === runner.uid) throw new Error(`the user ${AGENT_USER} has uid ${agent.uid}, which is root's or the runner's; remove it and run the setup again`);
  const user: FenceUser = { name: AGENT_USER, uid: agent.uid, gid: agent.gid, home: agent.home };
  rmSync(user.home, { recursive: true, force: true });
  mkdirSync(user.home, { recursive: true, mode: 0o700 });
  chownSync(user.home, user.uid, user.gid);
  chmodSync(user.home, 0o700);

  const proxyPort = o.proxyPort ?? pickProxyPort();
  const nft = findProgram('nft');
  if (!nft) lack(['packet-filter'], `${notInstalled('nft', 'nftables')}: no packet filter holds the agent to the proxy`);

  // The sudoers rule, checked by visudo before it is put in place (a broken drop-in breaks all of sudo).
  let sudoers: string | null = null;
  if (runner.uid !== 0) {
    const sudo = findProgram('sudo');
    const visudo = findProgram('visudo');
    if (!sudo || !visudo) {
      lack(['agent-user', 'resource-limits'], `${notInstalled(sudo ? 'visudo' : 'sudo', 'sudo')}: the worker (${runner.name}) has no way to start the agent as ${AGENT_USER}`);
    } else {
      sudoers = join(prefix, 'etc/sudoers.d', AGENT_USER);
      mkdirSync(dirname(sudoers), { recursive: true, mode: 0o750 });
      const draft = `${sudoers}.baton-new`;
      writeFileSync(draft, sudoersRule(runner.name, nft), { mode: 0o440 });
      try {
        run(visudo, ['-cf', draft]);
        renameSync(draft, sudoers);
      } finally {
        rmSync(draft, { force: true });
      }
    }
  }

  // The packet filter, loaded from a file in one transaction. A kernel without nf_tables is
  // reported like a missing nft: the rest of the fence still holds.
  let ruleset: string | null = null;
  if (nft) {
    ruleset = join(dir, 'fence.nft');
    writeFileSync(ruleset, fenceRuleset(user.uid, proxyPort), { mode: 0o644 });
    try {
      run(nft, ['-f', ruleset]);
    } catch (err) {
      lack(['packet-filter'], `the packet filter could not be loaded: ${(err as Error).message}`);
    }
  }

  // The checkout: the agent's, in the worker's group, folders setgid so that what the agent
  // creates stays in that group (the agent's umask is 002: the worker can write it too).
  run('chown', ['-R', `${user.uid}:${runner.gid}`, '--', workspace]);
  run('chmod', ['-R', 'u+rwX,g+rwX', '--', workspace]);
  run('find', [workspace, '-type', 'd', '-exec', 'chmod', 'g+s', '{}', '+']);
  // The CLIs' folder, fresh: the worker installs there after the drop, the agent only reads and runs.
  rmSync(tools, { recursive: true, force: true });
  mkdirSync(tools, { recursive: true });
  chownSync(tools, runner.uid, runner.gid);
  chmodSync(tools, 0o755);
  // The parents of both: traversable, not listable or readable, where they are the worker's;
  // the worker's home and temp folder closed to others.
  for (const a of new Set([...ancestors(workspace), ...ancestors(tools)])) {
    const st = statSync(a);
    if (st.uid === runner.uid && a !== '/') closeToOthers(a, true);
    else if (!(st.mode & 0o001)) chmodSync(a, (st.mode & 0o7777) | 0o001);
  }
  closeHome(runner.home, [workspace, tools]);
  mkdirSync(tempDir, { recursive: true });
  chmodSync(tempDir, statSync(tempDir).mode & 0o7700);

  // nft '': the probe's read of the filter fails, naming it missing (the record says why).
  const state: SetupState = { version: 2, user, runner: runner.name, nft: nft ?? '', workspace, proxyPort, tools, missing };
  writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o644 });
  return { state, missing, files: { state: stateFile, ruleset, sudoers } };
}
