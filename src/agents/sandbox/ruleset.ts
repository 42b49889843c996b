// The packet filter's rules, as the text `nft -f` loads in one transaction, and what it
// refused, read back from `nft -j list set`. Only the agent's user is filtered (meta skuid):
// its packets may go to 127.0.0.1 and ::1 — the proxy, and test servers the agent starts
// itself — except port 53, so that no name is resolved for it, not even by a local resolver;
// everything else (other loopback addresses such as 127.0.0.53, every other host, every
// protocol) is refused and its destination counted. Refused with an error, not dropped: a
// dropped TCP connection hangs the agent for minutes before it times out.

export const NFT_TABLE = 'baton';
export const REFUSED_SET_V4 = 'refused4';
export const REFUSED_SET_V6 = 'refused6';

/** Destinations kept per family: enough for any real agent; past it only the chain's counter counts. */
const SET_SIZE = 4096;

export function fenceRuleset(agentUid: number): string {
  if (!Number.isInteger(agentUid) || agentUid <= 0) throw new Error(`the agent's uid must be a positive integer, got ${agentUid}`);
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
    `    meta skuid != ${agentUid} accept`,
    '    th dport 53 jump refuse',
    '    oifname "lo" ip daddr 127.0.0.1 accept',
    '    oifname "lo" ip6 daddr ::1 accept',
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
