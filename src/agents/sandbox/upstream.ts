// The egress proxy's side of a connection: resolve an allowed name in the proxy (the agent has
// no DNS), drop the addresses it does not connect to, and connect to an address it checked — the
// address, not the name again, so that an answer changing between the check and the connect
// (DNS rebinding) cannot move the connection.
import { promises as dns } from 'node:dns';
import { connect, type Socket } from 'node:net';
import { isInternalAddress } from './internal-address.ts';
import type { Target } from './proxy-target.ts';

export type Resolve = (host: string) => Promise<string[]>;

export interface UpstreamOptions {
  resolve: Resolve;
  /** Connect allowed names to loopback, link-local and metadata addresses too (tests' stand-ins): all names, or those the predicate admits. */
  allowInternalAddresses: boolean | ((host: string) => boolean);
  /** For the lookup and the connect together. */
  connectTimeoutMs: number;
}

/** Why an allowed host could not be reached, said for the report (no raw error text of the system). */
export class Unreachable extends Error {}

/**
 * `getaddrinfo` runs on libuv's thread pool (4 threads), which the worker's file system calls
 * share: lookups that hang (an unanswered resolver) must not take all of it. At most two at once.
 */
const LOOKUPS_AT_ONCE = 2;
let lookupsRunning = 0;
const lookupQueue: (() => void)[] = [];

export const systemResolve: Resolve = async (host) => {
  if (lookupsRunning >= LOOKUPS_AT_ONCE) await new Promise<void>((go) => lookupQueue.push(go));
  lookupsRunning++;
  try {
    const found = await dns.lookup(host, { all: true, verbatim: true });
    return found.map((a) => a.address);
  } finally {
    lookupsRunning--;
    lookupQueue.shift()?.();
  }
};

function withDeadline<T>(work: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Unreachable(`${what} timed out`)), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function addressesOf(target: Target, o: UpstreamOptions, deadline: number): Promise<string[]> {
  if (target.literal) return [target.host];
  let found: string[];
  try {
    found = await withDeadline(o.resolve(target.host), deadline, 'DNS lookup');
  } catch (e) {
    if (e instanceof Unreachable) throw e;
    throw new Unreachable(`DNS lookup failed (${(e as NodeJS.ErrnoException).code ?? 'no address'})`);
  }
  if (found.length === 0) throw new Unreachable('DNS lookup found no address');
  const internalOk = typeof o.allowInternalAddresses === 'function' ? o.allowInternalAddresses(target.host) === true : o.allowInternalAddresses;
  const usable = internalOk ? found : found.filter((a) => !isInternalAddress(a));
  if (usable.length === 0) {
    throw new Unreachable(`resolves only to ${found.slice(0, 3).join(', ')}: loopback, link-local or metadata addresses, which the proxy does not connect a name to`);
  }
  return usable;
}

function connectTo(address: string, port: number, deadline: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Unreachable(`connecting to ${address} port ${port} timed out`));
    }, Math.max(0, deadline - Date.now()));
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Unreachable(`connecting to ${address} port ${port} failed (${e.code ?? e.message})`));
    });
  });
}

/** A connected socket to the target, or `Unreachable` saying why not. Addresses are tried in order. */
export async function connectUpstream(target: Target, o: UpstreamOptions): Promise<Socket> {
  const deadline = Date.now() + o.connectTimeoutMs;
  const addresses = await addressesOf(target, o, deadline);
  let last: unknown;
  for (const address of addresses) {
    if (Date.now() >= deadline) break;
    try {
      return await connectTo(address, target.port, deadline);
    } catch (e) {
      last = e;
    }
  }
  throw last instanceof Unreachable ? last : new Unreachable('connect timed out');
}
