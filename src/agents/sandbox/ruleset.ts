// The packet filter's rules, as the text `nft -f` loads in one transaction, and what it
// refused, read back from `nft -j list set`. Only the agent's user is filtered (meta skuid):
//
// - Its packets may go to the egress proxy (127.0.0.1, the proxy's port) and, over loopback by
//   TCP, to listeners of its own (the test servers it starts, a CLI's own local server); never
//   to port 53, so that no name is resolved for it, not even by a local resolver.
// - A listener on loopback that is not the agent's (a `services:` container mapped to
//   localhost, a dev server a step left, a local registry, a resolver) does not get the
//   connection: the agent's first SYN is let through and the connection marked (conntrack);
//   the other user's SYN-ACK is dropped on its way out, the connection marked refused, and the
//   agent's retransmitted SYN (a second later) refused below. The handshake never completes,
//   so that listener accepts nothing and receives no byte. A listener the agent closed resets
//   at once, as ever.
// - Everything else (every other host, UDP, ICMP) is refused and its destination counted.
//
// Refused with an error, not dropped: a dropped TCP connection hangs the agent for minutes. The
// reset a refusal sends is addressed to the agent's own address (the job's address, or
// loopback), and the kernel sends it without a socket: `meta skuid` does not match a packet
// without a socket, so a rule "every user but the agent passes" would send those resets into
// the agent's chain, refuse them and count them — the agent then hung until its own timeout,
// and the report listed the job's own address at random ports. The chain is entered only by
// packets the agent's sockets send, and the kernel's answers pass.

export const NFT_TABLE = 'baton';
export const REFUSED_SET_V4 = 'refused4';
export const REFUSED_SET_V6 = 'refused6';

/** Conntrack marks of the agent's loopback connections: opened by it, answered by someone else's socket. */
const OPENED = '0xba700001';
const ANSWERED_BY_OTHER = '0xba700002';

/** Destinations kept per family: enough for any real agent; past it only the chain's counter counts. */
const SET_SIZE = 4096;

export function fenceRuleset(agentUid: number, proxyPort: number): string {
  if (!Number.isInteger(agentUid) || agentUid <= 0) throw new Error(`the agent's uid must be a positive integer, got ${agentUid}`);
  if (!Number.isInteger(proxyPort) || proxyPort <= 0 || proxyPort > 65535 || proxyPort === 53) throw new Error(`the proxy's port must be a port number other than 53, got ${proxyPort}`);
  const set = (name: string, addr: string) =>
    [`  set ${name} {`, `    type ${addr} . inet_proto . inet_service`, '    flags dynamic', '    counter', `    size ${SET_SIZE}`, '  }'].join('\n');
  return [
    // Deleting the table before adding it makes a second load replace the first atomically.
    `table inet ${NFT_TABLE}`,
    `delete table inet ${NFT_TABLE}`,
    `table inet ${NFT_TABLE} {`,
    set(REFUSED_SET_V4, 'ipv4_addr'),
    set(REFUSED_SET_V6, 'ipv6_addr'),
    '  chain output {',
    '    type filter hook output priority filter; policy accept;',
    `    meta skuid ${agentUid} jump agent`,
    // Another socket's answer to a loopback connection the agent opened (not the proxy's, not a
    // reset), the first and every retransmission.
    `    ct mark { ${OPENED}, ${ANSWERED_BY_OTHER} } ct direction reply tcp sport != ${proxyPort} tcp flags & rst == 0 ct mark set ${ANSWERED_BY_OTHER} drop`,
    '  }',
    '  chain agent {',
    '    th dport 53 jump refuse',
    `    oifname "lo" ip daddr 127.0.0.1 tcp dport ${proxyPort} accept`,
    `    ct mark ${ANSWERED_BY_OTHER} jump refuse`,
    // Its own listeners' answers, and its connections to them once they answered.
    '    oifname "lo" meta l4proto tcp ct direction reply accept',
    `    oifname "lo" meta l4proto tcp ct state new ct mark set ${OPENED} accept`,
    `    oifname "lo" meta l4proto tcp ct mark ${OPENED} accept`,
    '    jump refuse',
    '  }',
    '  chain refuse {',
    `    meta nfproto ipv4 meta l4proto { tcp, udp } update @${REFUSED_SET_V4} { ip daddr . meta l4proto . th dport }`,
    `    meta nfproto ipv6 meta l4proto { tcp, udp } update @${REFUSED_SET_V6} { ip6 daddr . meta l4proto . th dport }`,
    // TCP gets a reset (ECONNREFUSED), anything else an ICMP "administratively prohibited".
    '    meta l4proto tcp counter reject with tcp reset',
    '    counter reject with icmpx admin-prohibited',
    '  }',
    '}',
    '',
  ].join('\n');
}

export interface Refusal {
  /** `127.0.0.2:443/tcp`, `[2001:db8::1]:53/udp`. */
  host: string;
  /** Packets refused to it (a TCP connection attempt is one; UDP counts each datagram). */
  count: number;
}

interface NftElem {
  elem?: { val?: { concat?: unknown[] }; counter?: { packets?: number } };
}

/** Parses `nft -j list set inet baton refused4` (or refused6) output into refusals, most refused first. */
export function parseRefusals(json: string): Refusal[] {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch {
    throw new Error(`nft -j list set printed something that is not JSON: ${json.slice(0, 200)}`);
  }
  const items = (doc as { nftables?: unknown[] }).nftables;
  if (!Array.isArray(items)) throw new Error('nft -j list set printed JSON without an "nftables" array');
  const out: Refusal[] = [];
  for (const item of items) {
    const set = (item as { set?: { elem?: NftElem[] } }).set;
    for (const e of set?.elem ?? []) {
      const [addr, proto, port] = e.elem?.val?.concat ?? [];
      if (typeof addr !== 'string' || (typeof proto !== 'string' && typeof proto !== 'number') || typeof port !== 'number') continue;
      const at = addr.includes(':') ? `[${addr}]` : addr;
      out.push({ host: `${at}:${port}/${proto}`, count: e.elem?.counter?.packets ?? 1 });
    }
  }
  return out.sort((a, b) => b.count - a.count || a.host.localeCompare(b.host));
}
