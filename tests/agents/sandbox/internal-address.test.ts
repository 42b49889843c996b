// Which addresses the egress proxy will not connect an allowed name to
// (src/agents/sandbox/internal-address.ts): the runner itself, link-local space with the cloud
// metadata endpoints, Azure's host endpoint — in every spelling an answer can take.
import { describe, expect, it } from 'vitest';
import { isInternalAddress } from '../../../src/agents/sandbox/internal-address.ts';

describe('isInternalAddress', () => {
  it('refuses loopback, link-local, metadata and host endpoints, IPv4 and IPv6, mapped or not', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '0.0.0.0', '169.254.169.254', '169.254.0.1', '168.63.129.16', '224.0.0.1', '255.255.255.255', '::', '::1', 'fe80::1', 'FE80::abcd', 'ff02::1', 'fd00:ec2::254', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::127.0.0.1']) {
      expect(isInternalAddress(a), a).toBe(true);
    }
  });

  it('lets public and private addresses through (an internal mirror of a self-hosted runner is private)', () => {
    for (const a of ['160.79.104.10', '8.8.8.8', '10.1.2.3', '172.16.0.1', '192.168.1.1', '100.64.0.1', '2607:6bc0::10', 'fd00::1', 'fd00:ec2::253', '::ffff:8.8.8.8']) {
      expect(isInternalAddress(a), a).toBe(false);
    }
  });

  it('refuses what is not an address at all', () => {
    expect(isInternalAddress('api.anthropic.com')).toBe(true);
    expect(isInternalAddress('')).toBe(true);
  });
});
