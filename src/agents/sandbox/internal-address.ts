// Addresses the egress proxy does not connect to for an allowed *name*: the allow-list trusts a
// name, not whoever answers for it in DNS. An address is judged by what it reaches, not by how
// it is spelled: it is parsed first — IPv4 in every form inet_aton takes (`0x7f.1`,
// `2130706433`, `0177.0.0.1`), IPv6 with its zone and brackets dropped — and an IPv6 address
// that carries an IPv4 address a translator or tunnel delivers to (IPv4-mapped and -compatible,
// IPv4-translated, NAT64, 6to4) is judged as that IPv4 address. What is left is judged against
// IANA's special-purpose address registries (REFUSED_V4, REFUSED_V6 below, each entry with its
// RFC): every block there that is not globally reachable is refused — the runner itself
// (loopback, "this network"), link-local space where the cloud metadata endpoints live
// (169.254.169.254 on AWS, GCP and Azure), shared address space (Alibaba's metadata,
// 100.100.100.200), documentation, benchmarking and reserved blocks — plus multicast and the
// cloud endpoints outside those blocks (Azure's host endpoint, AWS's IPv6 metadata). Private-use
// blocks (10/8, 172.16/12, 192.168/16, fc00::/7) are not: an internal package mirror of a
// self-hosted runner legitimately resolves there. An allow-list entry that is itself one of these
// literals still admits it (the proxy checks literals against the list, not against this).
import { BlockList, isIPv6 } from 'node:net';

/** Blocks of IANA's IPv4 special-purpose registry that are not globally reachable, private use excepted, and the rest refused. */
export const REFUSED_V4: readonly (readonly [block: string, why: string])[] = [
  ['0.0.0.0/8', '"this network" (RFC 791 §3.2): 0.0.0.0 reaches the host itself'],
  ['100.64.0.0/10', 'shared address space (RFC 6598): carrier NAT, and cloud endpoints such as Alibaba\'s metadata 100.100.100.200'],
  ['127.0.0.0/8', 'loopback (RFC 1122 §3.2.1.3)'],
  ['169.254.0.0/16', 'link-local (RFC 3927): the cloud metadata endpoints'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890 §2.1)'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1 (RFC 5737)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['240.0.0.0/4', 'reserved (RFC 1112 §4), and the limited broadcast 255.255.255.255 (RFC 919)'],
  ['168.63.129.16/32', "Azure's host endpoint (wire server, metadata relay): GitHub-hosted runners are Azure VMs"],
];

/** The same for IANA's IPv6 registry; blocks that carry an IPv4 address are judged by it instead (embeddedV4). */
export const REFUSED_V6: readonly (readonly [block: string, why: string])[] = [
  ['::/128', 'unspecified (RFC 4291): reaches the host itself'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation (RFC 8215): the operator\'s own translator'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['2001::/23', 'IETF protocol assignments (RFC 2928), Teredo (RFC 4380) among them, whose client address a relay delivers to'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
  ['5f00::/16', 'segment routing SIDs (RFC 9602)'],
  ['fd00:ec2::254/128', "AWS's IPv6 metadata endpoint (inside unique-local space, which is otherwise allowed)"],
  ['fe80::/10', 'link-local (RFC 4291)'],
  ['fec0::/10', 'deprecated site-local (RFC 3879)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
];

function blockList(entries: readonly (readonly [string, string])[], family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  for (const [block] of entries) {
    const [net, bits] = block.split('/') as [string, string];
    list.addSubnet(net, Number(bits), family);
  }
  return list;
}

const V4 = blockList(REFUSED_V4, 'ipv4');
const V6 = blockList(REFUSED_V6, 'ipv6');

/**
 * An IPv4 address as inet_aton reads it, which is how a name lookup and a connect read it:
 * one to four parts, each decimal, octal (leading 0) or hex (0x); the last part fills the bits
 * the others leave (`127.1` is 127.0.0.1, `2130706433` is too). Null when it is not one.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const p of parts) {
    const n = /^0x[0-9a-f]*$/i.test(p) ? (p.length > 2 ? parseInt(p.slice(2), 16) : 0) : /^0[0-7]*$/.test(p) ? parseInt(p, 8) : /^[1-9][0-9]*$/.test(p) ? Number(p) : NaN;
    if (!Number.isSafeInteger(n)) return null;
    values.push(n);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || last >= 2 ** (8 * (4 - values.length))) return null;
  return values.reduce((sum, v, i) => sum + v * 2 ** (8 * (3 - i)), 0) + last;
}

const dotted = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** The 8 groups of an IPv6 address Node accepts (isIPv6), zone dropped, a trailing dotted quad as two groups. */
function groups(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const n = parseIPv4(quad[1]!)!;
    text = text.slice(0, -quad[1]!.length) + `${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const left = head ? head.split(':').map((g) => parseInt(g, 16)) : [];
  if (tail === undefined) return left;
  const right = tail ? tail.split(':').map((g) => parseInt(g, 16)) : [];
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/** The IPv4 address an IPv6 address delivers to through a translator or tunnel; null when it carries none. */
function embeddedV4(g: number[]): number | null {
  const v4 = (hi: number, lo: number): number => hi * 65536 + lo;
  const zero = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  // ::ffff:a.b.c.d IPv4-mapped (RFC 4291 §2.5.5.2); ::a.b.c.d IPv4-compatible, deprecated (§2.5.5.1), but :: and ::1 are themselves.
  if (zero(0, 5) && g[5] === 0xffff) return v4(g[6]!, g[7]!);
  if (zero(0, 6) && (g[6] !== 0 || g[7]! > 1)) return v4(g[6]!, g[7]!);
  // ::ffff:0:a.b.c.d IPv4-translated (RFC 2765 §2.1, SIIT).
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6]!, g[7]!);
  // 64:ff9b::a.b.c.d, the well-known NAT64 prefix (RFC 6052 §2.1): the translator connects to it.
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return v4(g[6]!, g[7]!);
  // 2002:AABB:CCDD::/48, 6to4 (RFC 3056 §2): a relay delivers it to AA.BB.CC.DD.
  if (g[0] === 0x2002) return v4(g[1]!, g[2]!);
  return null;
}

/** Whether the proxy refuses to connect an allowed name to `address` (see above). */
export function isInternalAddress(address: string): boolean {
  const text = address.trim().replace(/^\[(.*)\]$/, '$1');
  const n = parseIPv4(text);
  if (n !== null) return V4.check(dotted(n), 'ipv4');
  if (!isIPv6(text)) return true; // not an address at all: never connect to it
  const g = groups(text);
  const inner = embeddedV4(g);
  if (inner !== null) return V4.check(dotted(inner), 'ipv4');
  return V6.check(g.map((x) => x.toString(16)).join(':'), 'ipv6');
}
