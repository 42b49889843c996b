// The environment that sends an agent's traffic through the egress proxy (docs/agents.md,
// "Behind the proxy"). Each spelling is read by some client: curl and git read the lower case
// ones (curl ignores upper-case HTTP_PROXY), Node libraries, Go and Python mostly the upper case;
// Node 24's own fetch and http read them only with NODE_USE_ENV_PROXY=1. Loopback is left out
// (NO_PROXY) so the agent's own test servers are reached directly: the packet filter leaves
// loopback open, and the proxy would refuse them. No CA variable: CONNECT tunnels TLS unopened.

/** `url`: the proxy's `http://127.0.0.1:<port>`. */
export function proxyEnv(url: string): Record<string, string> {
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTPS_PROXY: url,
    https_proxy: url,
    HTTP_PROXY: url,
    http_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
    NODE_USE_ENV_PROXY: '1',
  };
}
