// Where a client asks the egress proxy to go, read strictly: a DNS name, an IPv4 literal in its
// one dotted-quad spelling, or a bracketed IPv6 literal, and a port. Anything else is malformed,
// because what the proxy checks against the allow-list must be exactly what it connects to:
// `getaddrinfo` reads `2130706433`, `127.1` and `0x7f.1` as 127.0.0.1, so a "name" like those
// would pass a name check and land on an address the allow-list never named.
import { isIPv4, isIPv6 } from 'node:net';

export interface Target {
  /** Lower case, no trailing dot; an IPv6 literal without its brackets. */
  host: string;
  port: number;
  /** The host is an IP literal: connected to as written, never looked up. */
  literal: boolean;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A label `inet_aton` reads as a number: decimal, octal or hex. */
const NUMERIC_LABEL = /^(?:0x[0-9a-f]*|[0-9]+)$/;
const PORT = /^[1-9][0-9]{0,4}$/;

/** `host:port` (CONNECT's authority form, the port required) or, with `defaultPort`, `host[:port]`. */
export function parseAuthority(authority: string, defaultPort?: number): Target | null {
  let hostPart: string;
  let portPart: string | undefined;
  if (authority.startsWith('[')) {
    const end = authority.indexOf(']');
    if (end < 0) return null;
    hostPart = authority.slice(1, end);
    const rest = authority.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return null;
    portPart = rest === '' ? undefined : rest.slice(1);
    if (!isIPv6(hostPart) || hostPart.includes('%')) return null;
    return withPort({ host: hostPart.toLowerCase(), port: 0, literal: true }, portPart, defaultPort);
  }
  const colon = authority.lastIndexOf(':');
  hostPart = colon < 0 ? authority : authority.slice(0, colon);
  portPart = colon < 0 ? undefined : authority.slice(colon + 1);
  const host = hostName(hostPart);
  return host === null ? null : withPort({ host, port: 0, literal: isIPv4(host) }, portPart, defaultPort);
}

function withPort(target: Target, portPart: string | undefined, defaultPort: number | undefined): Target | null {
  if (portPart === undefined) return defaultPort === undefined ? null : { ...target, port: defaultPort };
  if (!PORT.test(portPart) || Number(portPart) > 65535) return null;
  return { ...target, port: Number(portPart) };
}

function hostName(raw: string): string | null {
  if (isIPv4(raw)) return raw;
  const name = raw.toLowerCase().replace(/\.$/, '');
  if (name.length === 0 || name.length > 253) return null;
  const labels = name.split('.');
  if (!labels.every((l) => LABEL.test(l))) return null;
  // A name whose last label is a number is an address in disguise (no top-level domain is numeric).
  if (NUMERIC_LABEL.test(labels[labels.length - 1]!)) return null;
  return name;
}

/**
 * How a target is named in the report and the refusal: what an allow-list entry would have to
 * say to admit it — the host alone for 443 and 80 (a pattern without a port admits both), else
 * `host:port`. IPv6 literals in brackets.
 */
export function targetKey(t: Target): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return t.port === 443 || t.port === 80 ? host : `${host}:${t.port}`;
}
