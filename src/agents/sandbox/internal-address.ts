// Addresses the egress proxy does not connect to for an allowed *name*: the allow-list trusts a
// name, not whoever answers for it in DNS. A name that resolves to the runner itself (loopback),
// to link-local space — where the cloud metadata endpoints live (169.254.169.254 on AWS, GCP and
// Azure, fd00:ec2::254 on AWS), a classic way to a runner's cloud credentials — or to Azure's
// host endpoint (168.63.129.16; GitHub-hosted runners are Azure VMs) is refused. Private ranges
// (10/8, 172.16/12, 192.168/16, fc00::/7) are not: an internal package mirror of a self-hosted
// runner legitimately resolves there. An allow-list entry that is itself one of these literals
// still admits it (the proxy checks literals against the list, not against this).
import { isIPv4, isIPv6 } from 'node:net';

function v4(address: string): number[] {
  return address.split('.').map(Number);
}

function internalV4(address: string): boolean {
  const [a, b] = v4(address) as [number, number, number, number];
  return (
    a === 0 || // "this network", 0.0.0.0 reaches the host itself
    a === 127 || // loopback
    (a === 169 && b === 254) || // link-local, cloud metadata
    address === '168.63.129.16' || // Azure host endpoint (wire server, metadata relay)
    a >= 224 // multicast, reserved, broadcast
  );
}

/** The 16 bytes of an IPv6 address as 8 groups. */
function groups(address: string): number[] {
  let text = address.toLowerCase();
  // A trailing dotted quad (::ffff:1.2.3.4) as two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = v4(quad[1]!) as [number, number, number, number];
    text = text.slice(0, -quad[1]!.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':').map((g) => parseInt(g, 16)) : [];
  if (tail === undefined) return left;
  const right = tail ? tail.split(':').map((g) => parseInt(g, 16)) : [];
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function internalV6(address: string): boolean {
  const g = groups(address);
  const zeroTo = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judged as the IPv4 address.
  if (zeroTo(5) && (g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7]! > 1)))) {
    return internalV4(`${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`);
  }
  return (
    zeroTo(8) || // ::
    (zeroTo(7) && g[7] === 1) || // ::1
    (g[0]! & 0xffc0) === 0xfe80 || // link-local
    (g[0]! & 0xff00) === 0xff00 || // multicast
    (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) // AWS metadata
  );
}

/** Whether the proxy refuses to connect an allowed name to `address` (see above). */
export function isInternalAddress(address: string): boolean {
  if (isIPv4(address)) return internalV4(address);
  if (isIPv6(address)) return internalV6(address);
  return true; // not an address at all: never connect to it
}
