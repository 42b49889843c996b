// Which addresses the egress proxy will not connect an allowed name to
// (src/agents/sandbox/internal-address.ts): judged by what they reach after parsing, against
// IANA's special-purpose registries, in every spelling an answer can take.
import { describe, expect, it } from 'vitest';
import { isInternalAddress, parseIPv4 } from '../../../src/agents/sandbox/internal-address.ts';

/** Each spelling with what it reaches. */
const REFUSED: [spelling: string, reaches: string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.9.9.9', 'loopback'],
  ['0x7f.1', 'loopback, hex and short (inet_aton)'],
  ['0177.0.0.1', 'loopback, octal'],
  ['2130706433', 'loopback, one decimal number'],
  ['0x7f000001', 'loopback, one hex number'],
  ['127.1', 'loopback, short'],
  ['0.0.0.0', '"this network"'],
  ['0', '"this network", one number'],
  ['169.254.169.254', 'cloud metadata'],
  ['0xa9.0xfe.0xa9.0xfe', 'cloud metadata, hex'],
  ['0251.0376.0251.0376', 'cloud metadata, octal'],
  ['2852039166', 'cloud metadata, one number'],
  ['169.254.0.1', 'link-local'],
  ['100.100.100.200', "Alibaba's metadata, shared address space"],
  ['100.64.0.1', 'shared address space'],
  ['168.63.129.16', "Azure's host endpoint"],
  ['192.0.0.192', 'IETF protocol assignments'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['198.18.0.1', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['255.255.255.255', 'limited broadcast'],
  ['240.0.0.1', 'reserved'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback, bracketed'],
  ['0:0:0:0:0:0:0:1', 'loopback, unabbreviated'],
  ['fe80::1', 'link-local'],
  ['FE80::abcd%eth0', 'link-local with a zone'],
  ['ff02::1', 'multicast'],
  ['fd00:ec2::254', "AWS's IPv6 metadata"],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::ffff:0:a9fe:a9fe', 'IPv4-translated metadata'],
  ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
  ['64:ff9b::a9fe:a9fe', 'NAT64 metadata'],
  ['64:ff9b::169.254.169.254', 'NAT64 metadata, dotted'],
  ['64:ff9b::7f00:1', 'NAT64 loopback'],
  ['64:ff9b::6464:64c8', "NAT64 Alibaba's metadata"],
  ['64:ff9b:1::a9fe:a9fe', 'local-use NAT64'],
  ['2002:a9fe:a9fe::1', '6to4 metadata'],
  ['2002:7f00:1::', '6to4 loopback'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
  ['2001:db8::1', 'documentation'],
  ['100::1', 'discard-only'],
  ['not-an-address', 'not an address: never connected to'],
  ['', 'empty'],
  ['1.2.3.4.5', 'five parts'],
  ['256.1.1.1', 'a part past 255'],
  ['08.1.1.1', 'an octal part with an 8'],
];

const ALLOWED: [spelling: string, reaches: string][] = [
  ['160.79.104.10', 'public'],
  ['8.8.8.8', 'public'],
  ['0x8.0x8.0x8.0x8', 'public, hex'],
  ['134744072', 'public, one number'],
  ['10.1.2.3', 'private use (a self-hosted mirror)'],
  ['172.16.0.1', 'private use'],
  ['192.168.1.1', 'private use'],
  ['100.128.0.1', 'just past shared address space'],
  ['2607:6bc0::10', 'public IPv6'],
  ['fd00::1', 'unique-local (a self-hosted mirror)'],
  ['fd00:ec2::253', "unique-local, AWS's resolver, not its metadata"],
  ['::ffff:8.8.8.8', 'IPv4-mapped public'],
  ['64:ff9b::808:808', 'NAT64 public'],
  ['2002:808:808::1', '6to4 public'],
];

describe('isInternalAddress', () => {
  it.each(REFUSED)('refuses %s (%s)', (spelling) => {
    expect(isInternalAddress(spelling)).toBe(true);
  });

  it.each(ALLOWED)('lets %s through (%s)', (spelling) => {
    expect(isInternalAddress(spelling)).toBe(false);
  });

  it('reads IPv4 as inet_aton does', () => {
    expect(parseIPv4('0x7f.1')).toBe(0x7f000001);
    expect(parseIPv4('127.0.1')).toBe(0x7f000001);
    expect(parseIPv4('1.2.3.4')).toBe(0x01020304);
    expect(parseIPv4('4294967295')).toBe(0xffffffff);
    expect(parseIPv4('4294967296')).toBeNull();
    expect(parseIPv4('1.16777216')).toBeNull();
    expect(parseIPv4('1..2')).toBeNull();
  });
});
