// The emulated runner's sandbox (RunnerOptions.sandbox): a job's processes run in a network
// and mount namespace of their own, as the user `runner` with the sudoers rule GitHub's
// Ubuntu images give it (/etc/sudoers.d/runner: passwordless sudo), so that the worker
// workflow's steps take their production path — the fence step's guard holds, `sudo -E`
// runs the sandbox setup as root, the drop step removes the rule, and the worker starts the
// agent through the setup's own sudo rule. The emulator itself runs as root; nothing a job
// does reaches the machine:
//
//   users, sudoers   the job's /etc is a copy (with `runner` added), bind-mounted over /etc
//                    in the job's mount namespace only; /home is a folder of the job's
//   firewall         the job's nftables are its network namespace's
//   shared files     a sysctl and the docker socket a step's sudo could change are covered
//                    with files of the job's (they are not there on every machine)
//   programs         `without: ['nft']` covers a program with /dev/null: an image that lacks it
//   network          loopback only: the emulator's ports are forwarded from the job's
//                    127.0.0.1 to Unix sockets the emulator serves (sandbox-holder.mjs)
//
// The built-in actions (checkout, artifacts) run inside the emulator as root, as GitHub's
// run inside the runner; what they write into the job is handed to `runner` (`own`), as
// their files belong to the job's user on GitHub. Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN):
// without it the job fails saying so, never runs unsandboxed.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, readdir, readlink, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HOLDER = fileURLToPath(new URL('./sandbox-holder.mjs', import.meta.url));

/** GitHub's hosted runners run jobs as `runner`, whose sudoers drop-in lets it do anything. */
export const RUNNER_USER = 'runner';
export const RUNNER_SUDOERS = `${RUNNER_USER} ALL=(ALL) NOPASSWD:ALL\n`;

/**
 * Machine files a job's root could change through a shared mount: covered in the job's
 * namespace by a file of its own. The worker workflow's codex step writes the sysctl
 * (kernel settings are not per network namespace), its drop step chmods the docker socket.
 */
const SYSTEM_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

const MASKED = ['/proc/sys/kernel/apparmor_restrict_unprivileged_userns', '/var/run/docker.sock', '/run/docker.sock'];

export interface SandboxOptions {
  /** The job's folder (created by the runner). */
  dir: string;
  /** The folder every job folder lies in (its ancestors up to here are made traversable for `runner`). */
  root: string;
  /** The job's HOME: the runner user's home. */
  home: string;
  /** Loopback ports the job's processes reach (the emulator's, a test's registry…). */
  ports: number[];
  /** Programs the job's machine lacks (`nft`, `useradd`…): covered by /dev/null, which runs nowhere. */
  without?: string[];
}

export interface JobSandbox {
  readonly uid: number;
  readonly gid: number;
  /** The command that runs `argv` in the job's namespaces as `runner`, in `cwd`. */
  wrap(argv: string[], cwd: string): string[];
  /** Hands what the emulator wrote into the job (a checkout, a command file) to `runner`. */
  own(path: string): Promise<void>;
  /** Ends every process left in the job's namespace, and the namespace. */
  close(): Promise<void>;
}

function userIds(passwd: string, name: string): { uid: number; gid: number } | undefined {
  const f = passwd.split('\n').map((l) => l.split(':')).find((x) => x[0] === name);
  return f ? { uid: Number(f[2]), gid: Number(f[3]) } : undefined;
}

/** Processes whose network namespace is `ns` (the link text `net:[inode]`). */
async function processesIn(ns: string): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if ((await readlink(`/proc/${name}/ns/net`)) === ns) out.push(Number(name));
    } catch {
      // gone
    }
  }
  return out;
}

export async function startJobSandbox(o: SandboxOptions): Promise<JobSandbox> {
  if (process.getuid?.() !== 0) {
    throw new Error(`the runner's sandbox needs root (CAP_SYS_ADMIN for the job's namespaces, CAP_NET_ADMIN for its packet filter); this process is uid ${process.getuid?.()}`);
  }
  // The job's /etc, /home and sockets: root's, outside the job's folders (a short path: a
  // Unix socket's is 108 bytes at most).
  const ns = await mkdtemp(join(tmpdir(), 'bsbx-'));
  const servers: Server[] = [];
  const open = new Set<Socket>();
  let holder: ChildProcess | undefined;
  let ids = { uid: -1, gid: -1 };
  const cleanup = async (): Promise<void> => {
    for (const socket of open) socket.destroy();
    for (const server of servers) await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(ns, { recursive: true, force: true });
  };
  try {
    // The job's user database and sudoers: a copy of the machine's /etc with `runner` added.
    const etc = join(ns, 'etc');
    await run('cp', ['-a', '/etc', etc]);
    if (!userIds(await readFile(join(etc, 'passwd'), 'utf8'), RUNNER_USER)) {
      await run('useradd', ['--prefix', ns, '--user-group', '--shell', '/bin/bash', '--home-dir', o.home, '--no-create-home', RUNNER_USER]);
    }
    ids = userIds(await readFile(join(etc, 'passwd'), 'utf8'), RUNNER_USER)!;
    await mkdir(join(etc, 'sudoers.d'), { recursive: true, mode: 0o750 });
    await writeFile(join(etc, 'sudoers.d', RUNNER_USER), RUNNER_SUDOERS, { mode: 0o440 });
    const home = join(ns, 'home');
    await mkdir(home, { mode: 0o755 });
    const masks: Array<[string, string]> = [];
    for (const [i, path] of MASKED.entries()) {
      try {
        await stat(path);
      } catch {
        continue;
      }
      const file = join(ns, `masked-${i}`);
      await writeFile(file, '0\n');
      masks.push([file, path]);
    }

    for (const name of o.without ?? []) {
      if (!/^[\w.+-]+$/.test(name)) throw new Error(`sandbox.without: ${JSON.stringify(name)} is not a program name`);
      const found = new Set<string>();
      for (const d of SYSTEM_PATH) {
        const p = await realpath(join(d, name)).catch(() => null);
        if (p) found.add(p);
      }
      for (const p of found) masks.push(['/dev/null', p]);
    }

    // The job's folders are the runner's, and reachable for it.
    for (let d = o.dir; d.startsWith(o.root) && d !== dirname(d); d = dirname(d)) {
      const st = await stat(d);
      if (!(st.mode & 0o001)) await chmod(d, (st.mode & 0o7777) | 0o055);
    }
    await run('chown', ['-R', `${ids.uid}:${ids.gid}`, '--', o.dir]);

    // The emulator's side of each forwarded port: a Unix socket.
    const forward: Array<[number, string]> = [];
    for (const port of o.ports) {
      const path = join(ns, `${port}.sock`);
      const server = createServer((inside) => {
        const outside = createConnection(port, '127.0.0.1');
        inside.pipe(outside).pipe(inside);
        open.add(inside).add(outside);
        const end = (): void => {
          inside.destroy();
          outside.destroy();
          open.delete(inside);
          open.delete(outside);
        };
        inside.on('close', end);
        outside.on('close', end);
        inside.on('error', end);
        outside.on('error', end);
      });
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
      servers.push(server);
      forward.push([port, path]);
    }

    holder = spawn('unshare', ['--net', '--mount', '--fork', '--', process.execPath, HOLDER, JSON.stringify({ etc, home, masks, forward })], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    const started = holder;
    started.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    await new Promise<void>((resolve, reject) => {
      started.stdout!.on('data', (c: Buffer) => {
        if (c.toString().includes('ready')) resolve();
      });
      started.on('exit', (code, signal) => reject(new Error(`the job's namespace did not start (unshare exited ${code ?? signal}): ${stderr.trim()}`)));
      started.on('error', reject);
    });
  } catch (err) {
    holder?.kill('SIGKILL');
    await cleanup();
    throw err;
  }
  const pid = holder!.pid!;
  const held = holder!;
  const netns = await readlink(`/proc/${pid}/ns/net`);

  return {
    ...ids,
    // The folder is entered inside the namespace: nsenter's --wd opens it in the emulator's
    // mount tree, where it is unreachable from the job's root (getcwd fails with EACCES).
    // `env`, not a shell: dash drops variables whose names it cannot hold (INPUT_STATE-SECRET).
    wrap: (argv, cwd) => ['nsenter', `--target=${pid}`, '--net', '--mount', '--', 'setpriv', `--reuid=${ids.uid}`, `--regid=${ids.gid}`, '--init-groups', '--', 'env', `--chdir=${cwd}`, '--', ...argv],
    own: async (path) => {
      if (!(await stat(path).catch(() => null))) return;
      await run('chown', ['-R', `${ids.uid}:${ids.gid}`, '--', path]);
    },
    close: async () => {
      // What the job left running (a daemon of the agent's, a sudo'd process) dies with it, as
      // GitHub's runner machine goes away after the job.
      for (const p of await processesIn(netns)) {
        if (p === pid) continue;
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // gone
        }
      }
      const exited = new Promise<void>((resolve) => (held.exitCode !== null || held.signalCode !== null ? resolve() : held.once('exit', () => resolve())));
      held.stdin!.end();
      await exited;
      await cleanup();
    },
  };
}
