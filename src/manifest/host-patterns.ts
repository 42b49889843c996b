// Host patterns: how a manifest names what an agent may reach (`network: { allow: [...] }`),
// and the one matcher both the validator and the sandbox's proxy use, so what `baton validate`
// accepts is exactly what the proxy lets through. Pure: no DNS, no I/O.
//
//   api.example.com        that host, ports 443 and 80
//   *.example.com          any name under example.com (a.example.com, a.b.example.com), not example.com itself
//   api.example.com:8443   that host, that port only
//   10.0.0.5, [fd00::1]:8080  an address, exactly (self-hosted endpoints); never a range
//
// Deny by default: a host or pattern that is not well formed matches nothing.

export interface HostPattern {
  /** `*.` was written: any name strictly under `name`. */
  wildcard: boolean;
  /** Lowercase DNS name, dotted-decimal IPv4, or canonical IPv6 (without brackets). */
  name: string;
  kind: 'name' | 'ipv4' | 'ipv6';
  /** null: ports 443 and 80 (HTTPS and HTTP). */
  port: number | null;
}

/** The ports a pattern without `:port` allows: HTTPS and plain HTTP. */
export const DEFAULT_PORTS: readonly number[] = [443, 80];

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** Why `p` is not a host pattern (a sentence for the manifest's error), or null when it is one. */
export function hostPatternError(p: string): string | null {
  return parse(p).error;
}

/** The pattern, parsed; null when it is not one (hostPatternError says why). */
export function parseHostPattern(p: string): HostPattern | null {
  return parse(p).pattern;
}

function parse(p: string): { pattern: HostPattern | null; error: string | null } {
  const fail = (error: string): { pattern: null; error: string } => ({ pattern: null, error });
  if (typeof p !== 'string' || p === '') return fail('a host pattern is empty');
  // Lookalike letters (Cyrillic `а` in `аpi.anthropic.com`) read as the real name in review.
  if (!/^[\x21-\x7e]*$/.test(p)) return fail('has characters other than ASCII letters, digits, `-`, `.`; write an international name in its `xn--` form');
  if (p.includes('://')) return fail('is a URL; write only the host (`api.example.com`, or `api.example.com:8443` for another port)');
  if (/[/?#@\\]/.test(p)) return fail('has a path, query or user part; write only the host, with an optional `:port`');
  if (/[A-Z]/.test(p)) return fail(`has capital letters; write it in lowercase (\`${p.toLowerCase()}\`)`);
  let host = p;
  let port: number | null = null;
  const ported = /^(.*?):(\d+)$/.exec(p);
  // `[v6]:port`, `name:port`; a bare IPv6 address has colons of its own and needs brackets.
  if (ported && (ported[1]!.startsWith('[') ? ported[1]!.endsWith(']') : !ported[1]!.includes(':'))) {
    host = ported[1]!;
    const digits = ported[2]!;
    port = Number(digits);
    if (digits.startsWith('0') || port < 1 || port > 65535) return fail(`has port ${digits}; a port is a number from 1 to 65535`);
  }
  if (host.startsWith('[') || host.includes(':')) {
    const inner = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : null;
    const canonical = inner === null ? null : canonicalIpv6(inner);
    if (canonical === null) return fail('is not a host: an IPv6 address goes in brackets (`[fd00::1]`, `[fd00::1]:8080`), a port after one `:`');
    return { pattern: { wildcard: false, name: canonical, kind: 'ipv6', port }, error: null };
  }
  if (host.endsWith('.')) return fail(`ends with \`.\`; write it without (\`${host.replace(/\.+$/, '')}\`)`);
  const wildcard = host.startsWith('*.');
  const name = wildcard ? host.slice(2) : host;
  if (name.includes('*')) return fail('has `*` other than as a whole first label; `*.example.com` allows every name under example.com');
  const labels = name.split('.');
  if (IPV4.test(name)) {
    if (wildcard) return fail('puts `*` on an address; addresses are allowed one by one, never as a range');
    return { pattern: { wildcard: false, name, kind: 'ipv4', port }, error: null };
  }
  if (name.length > 253 || labels.some((l) => !LABEL.test(l))) {
    return fail('is not a DNS name: labels of letters, digits and `-` (not at either end), 1 to 63 characters, separated by `.`');
  }
  // `127.1`, `2130706433`, `1.2.3.4.5`: resolvers read some of these as addresses; no top-level domain is numeric.
  if (/^\d+$/.test(labels[labels.length - 1]!)) return fail('ends in a number but is not an IPv4 address (four numbers 0–255, like `10.0.0.5`)');
  if (wildcard && labels.length < 2) return fail(`puts \`*\` directly on \`${name}\`, which would allow every host under a whole top-level domain; name the domain (\`*.example.${name}\`)`);
  return { pattern: { wildcard, name, kind: 'name', port }, error: null };
}

function canonicalIpv6(text: string): string | null {
  if (!/^[0-9a-f:.]+$/i.test(text) || !text.includes(':')) return null;
  try {
    const h = new URL(`http://[${text}]/`).hostname;
    return h.slice(1, -1);
  } catch {
    return null;
  }
}

/** A host as a client asked for it (CONNECT, Host header), comparable with patterns; null when it is not a host. */
export function canonicalHost(host: string): { name: string; kind: HostPattern['kind'] } | null {
  if (typeof host !== 'string' || !/^[\x21-\x7e]+$/.test(host)) return null;
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.includes(':')) {
    const v6 = canonicalIpv6(h);
    return v6 === null ? null : { name: v6, kind: 'ipv6' };
  }
  if (h.endsWith('.')) h = h.slice(0, -1);
  if (IPV4.test(h)) return { name: h, kind: 'ipv4' };
  const labels = h.split('.');
  if (h.length > 253 || labels.some((l) => !LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1]!)) return null;
  return { name: h, kind: 'name' };
}

function portAllowed(pattern: HostPattern, port: number): boolean {
  return pattern.port === null ? DEFAULT_PORTS.includes(port) : pattern.port === port;
}

function nameMatches(pattern: HostPattern, host: { name: string; kind: HostPattern['kind'] }): boolean {
  if (pattern.kind !== host.kind) return false;
  if (!pattern.wildcard) return pattern.name === host.name;
  return host.name.endsWith(`.${pattern.name}`);
}

/**
 * Whether `host:port` is allowed by one of `patterns`. Case does not matter, one trailing
 * dot is ignored (`api.example.com.` is `api.example.com`); a malformed pattern allows nothing.
 */
export function matchesHost(patterns: readonly string[], host: string, port: number): boolean {
  const h = canonicalHost(host);
  if (h === null || !Number.isInteger(port)) return false;
  return patterns.some((text) => {
    const p = parseHostPattern(text);
    return p !== null && portAllowed(p, port) && nameMatches(p, h);
  });
}

/**
 * Whether everything pattern `b` allows is allowed by `a` (a step narrowing its agent's list):
 * every host and port of `b`, taken port by port, falls under one pattern of `a`.
 */
export function covers(a: readonly string[], b: string): boolean {
  const pb = parseHostPattern(b);
  if (pb === null) return false;
  const pa = a.map(parseHostPattern).filter((p): p is HostPattern => p !== null);
  const ports = pb.port === null ? DEFAULT_PORTS : [pb.port];
  return ports.every((port) =>
    pa.some((p) => {
      if (!portAllowed(p, port) || p.kind !== pb.kind) return false;
      if (!pb.wildcard) return nameMatches(p, pb);
      // Every name under pb.name is under p.name only when p is a wildcard at or above it.
      return p.wildcard && (pb.name === p.name || pb.name.endsWith(`.${p.name}`));
    }),
  );
}

/** The pattern that allows exactly a URL's host and port (an MCP server's `url`); null for a URL without a usable host. */
export function patternForUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  // URL() leaves out the scheme's default port, which a pattern without port allows.
  const pattern = u.port ? `${u.hostname}:${u.port}` : u.hostname;
  return hostPatternError(pattern) === null ? pattern : null;
}
