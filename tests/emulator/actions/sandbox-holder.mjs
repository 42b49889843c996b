/* global process */
// The process that holds a sandboxed job's namespaces (sandbox.ts): started as root by
// `unshare --net --mount --fork`, it brings loopback up, puts the job's own /etc and /home
// over the machine's (in this mount namespace only: unshare makes its mounts private),
// hides what a step's `sudo` could otherwise change on the machine through a shared file,
// and forwards the emulator's ports from this namespace's loopback to Unix sockets the
// emulator serves in its own namespace (a file socket is reachable across network
// namespaces; a TCP port is not). Then it prints `ready` and lives until its stdin closes.
//
//   node sandbox-holder.mjs '<json: { etc, home, masks: [[file, over]], forward: [[port, socket]] }>'
import { execFileSync } from 'node:child_process';
import { createConnection, createServer } from 'node:net';

const config = JSON.parse(process.argv[2]);
const sh = (cmd, args) => execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });

sh('ip', ['link', 'set', 'lo', 'up']);
sh('mount', ['--bind', config.etc, '/etc']);
sh('mount', ['--bind', config.home, '/home']);
for (const [file, over] of config.masks) sh('mount', ['--bind', file, over]);

await Promise.all(
  config.forward.map(
    ([port, socket]) =>
      new Promise((resolve, reject) => {
        const server = createServer((inside) => {
          const outside = createConnection(socket);
          inside.pipe(outside).pipe(inside);
          const end = () => {
            inside.destroy();
            outside.destroy();
          };
          inside.on('error', end);
          outside.on('error', end);
        });
        server.on('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      }),
  ),
);
process.stdout.write('ready\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
