// Host patterns: the one matcher the validator and the sandbox's proxy share. Hostile inputs
// (lookalike letters, suffix tricks, address shorthands) must allow nothing they do not name.
import { describe, expect, it } from 'vitest';
import { canonicalHost, covers, hostPatternError, matchesHost, patternForUrl } from '../../src/manifest/host-patterns.ts';

describe('hostPatternError', () => {
  it.each(['api.anthropic.com', '*.githubcopilot.com', 'api.example.com:8443', 'localhost', '10.0.0.5', '10.0.0.5:8080', '[fd00::1]', '[fd00::1]:8080', 'xn--80ak6aa92e.com', '*.a.b.example.com'])(
    'accepts %s',
    (p) => expect(hostPatternError(p)).toBeNull(),
  );

  it.each([
    ['', /empty/],
    ['аpi.anthropic.com', /ASCII.*xn--/], // Cyrillic а
    ['api.anthropic.com\u200b', /ASCII/], // zero-width space
    ['https://api.example.com', /URL/],
    ['api.example.com/v1', /path/],
    ['user@api.example.com', /path, query or user/],
    ['API.example.com', /lowercase \(`api\.example\.com`\)/],
    ['*.com', /top-level domain/],
    ['*', /top-level domain|not a DNS name|`\*`/],
    ['a.*.example.com', /whole first label/],
    ['*example.com', /whole first label/],
    ['**.example.com', /whole first label/],
    ['api.example.com.', /without/],
    ['api.example.com:0', /1 to 65535/],
    ['api.example.com:65536', /1 to 65535/],
    ['api.example.com:0443', /1 to 65535/],
    ['10.0.0.0/8', /path/],
    ['10.0.0.*', /whole first label/],
    ['*.0.0.1', /address/],
    ['127.1', /IPv4/],
    ['2130706433', /IPv4/],
    ['1.2.3.4.5', /IPv4/],
    ['256.1.1.1', /IPv4/],
    ['fd00::1', /brackets/],
    ['[fd00::1', /brackets/],
    ['[not-v6]', /brackets/],
    ['-bad.example.com', /DNS name/],
    ['under_score.example.com', /DNS name/],
    ['a..example.com', /DNS name/],
  ])('refuses %j', (p, why) => {
    expect(hostPatternError(p)).toMatch(why);
  });
});

describe('matchesHost', () => {
  it('matches an exact name on 443 and 80 only, case-insensitively, one trailing dot ignored', () => {
    const allow = ['api.anthropic.com'];
    expect(matchesHost(allow, 'api.anthropic.com', 443)).toBe(true);
    expect(matchesHost(allow, 'API.Anthropic.COM', 80)).toBe(true);
    expect(matchesHost(allow, 'api.anthropic.com.', 443)).toBe(true);
    expect(matchesHost(allow, 'api.anthropic.com..', 443)).toBe(false);
    expect(matchesHost(allow, 'api.anthropic.com', 22)).toBe(false);
    expect(matchesHost(allow, 'api.anthropic.com', 8443)).toBe(false);
  });

  it('does not let a longer name that starts or ends alike through', () => {
    const allow = ['example.com', '*.example.org'];
    expect(matchesHost(allow, 'example.com.evil.com', 443)).toBe(false);
    expect(matchesHost(allow, 'evilexample.com', 443)).toBe(false);
    expect(matchesHost(allow, 'a.example.com', 443)).toBe(false);
    expect(matchesHost(allow, 'example.org.evil.com', 443)).toBe(false);
    expect(matchesHost(allow, 'evilexample.org', 443)).toBe(false);
  });

  it('matches a wildcard on every name under the domain but not the domain itself', () => {
    const allow = ['*.example.com'];
    expect(matchesHost(allow, 'a.example.com', 443)).toBe(true);
    expect(matchesHost(allow, 'a.b.example.com', 443)).toBe(true);
    expect(matchesHost(allow, 'example.com', 443)).toBe(false);
    expect(matchesHost(allow, '.example.com', 443)).toBe(false);
  });

  it('holds a port pattern to its port', () => {
    expect(matchesHost(['api.example.com:8443'], 'api.example.com', 8443)).toBe(true);
    expect(matchesHost(['api.example.com:8443'], 'api.example.com', 443)).toBe(false);
  });

  it('refuses lookalike, punycode-decoded and malformed hosts', () => {
    expect(matchesHost(['api.anthropic.com'], 'аpi.anthropic.com', 443)).toBe(false);
    expect(matchesHost(['xn--pi-6kc.anthropic.com'], 'аpi.anthropic.com', 443)).toBe(false);
    expect(matchesHost(['*.example.com'], 'a b.example.com', 443)).toBe(false);
    expect(matchesHost(['*.example.com'], 'a.example.com', Number.NaN)).toBe(false);
  });

  it('matches addresses exactly, never a shorthand or a name that looks like one', () => {
    expect(matchesHost(['127.0.0.1'], '127.0.0.1', 80)).toBe(true);
    expect(matchesHost(['127.0.0.1'], '127.1', 80)).toBe(false);
    expect(matchesHost(['127.0.0.1'], '2130706433', 80)).toBe(false);
    expect(matchesHost(['127.0.0.1'], '0x7f.0.0.1', 80)).toBe(false);
    expect(matchesHost(['[fd00::1]:8080'], '[fd00:0:0::1]', 8080)).toBe(true);
    expect(matchesHost(['[fd00::1]:8080'], 'fd00::1', 8080)).toBe(true);
    expect(matchesHost(['[fd00::1]:8080'], 'fd00::2', 8080)).toBe(false);
  });

  it('ignores a malformed pattern in the list (it allows nothing)', () => {
    expect(matchesHost(['*', '*.com', 'https://a.example.com', 'A.EXAMPLE.COM'], 'a.example.com', 443)).toBe(false);
  });
});

describe('covers', () => {
  const agent = ['api.anthropic.com', '*.example.com', 'registry.npmjs.org:443', 'ci.example.org:8443'];

  it('holds a host, a narrower wildcard and a port the list allows', () => {
    expect(covers(agent, 'api.anthropic.com')).toBe(true);
    expect(covers(agent, 'docs.example.com')).toBe(true);
    expect(covers(agent, '*.docs.example.com')).toBe(true);
    expect(covers(agent, '*.example.com')).toBe(true);
    expect(covers(agent, 'api.anthropic.com:443')).toBe(true);
    expect(covers(agent, 'registry.npmjs.org:443')).toBe(true);
  });

  it('refuses what would widen the list', () => {
    expect(covers(agent, 'example.com')).toBe(false);
    expect(covers(agent, '*.anthropic.com')).toBe(false);
    expect(covers(agent, 'api.anthropic.com:8443')).toBe(false);
    // Without a port a pattern also allows 80, which the agent's `:443` does not.
    expect(covers(agent, 'registry.npmjs.org')).toBe(false);
    expect(covers(agent, 'ci.example.org')).toBe(false);
    expect(covers(agent, 'evil.com')).toBe(false);
    expect(covers(agent, 'not a pattern')).toBe(false);
  });

  it('takes ports one by one across patterns', () => {
    expect(covers(['*.example.com:443', '*.example.com:80'], '*.a.example.com')).toBe(true);
    expect(covers(['*.example.com:443'], '*.a.example.com')).toBe(false);
  });
});

describe('patternForUrl and canonicalHost', () => {
  it('turns an MCP server URL into the pattern of its host and port', () => {
    expect(patternForUrl('https://mcp.example.com/mcp')).toBe('mcp.example.com');
    expect(patternForUrl('http://MCP.Example.com:8080/x?y')).toBe('mcp.example.com:8080');
    expect(patternForUrl('https://[fd00::1]:9000/')).toBe('[fd00::1]:9000');
    expect(patternForUrl('https://аpi.example.com/')).toBe('xn--pi-6kc.example.com');
    expect(patternForUrl('ftp://files.example.com/')).toBeNull();
    expect(patternForUrl('not a url')).toBeNull();
  });

  it('reads what a client asks for', () => {
    expect(canonicalHost('Api.Example.COM.')).toEqual({ name: 'api.example.com', kind: 'name' });
    expect(canonicalHost('[::ffff:10.0.0.1]')).toEqual({ name: '::ffff:a00:1', kind: 'ipv6' });
    expect(canonicalHost('ex ample.com')).toBeNull();
  });
});
