// Contract: the real Claude Code CLI at the pinned version, started by `runWorker` for a task
// with a sandbox request, reaches its model API through the sandbox's egress proxy. The
// stand-in API listens on loopback under a name only the proxy resolves (its resolver is
// injected for the test: `api.anthropic.test` → 127.0.0.1), so a request that arrives there
// came through the proxy. The host is allowed by the worker job's own ANTHROPIC_BASE_URL
// (credentialHosts), not by the request. No fence here: it needs root in a namespace
// (tests/agents/sandbox/worker-sandbox.test.ts); this is about the CLI honouring the proxy.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolve } from '../../../src/agents/sandbox/upstream.ts';
import { runWorker } from '../../../src/agents/worker.ts';
import { makeRepo, makeTask } from '../helpers.ts';
import { closedPort, loopbackApi, realBinary } from './harness.ts';

const API_HOST = 'api.anthropic.test';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** The resolver of the proxy in this test: the stand-in's name → 127.0.0.1, nothing else. */
const resolve: Resolve = async (host) => {
  if (host === API_HOST) return ['127.0.0.1'];
  throw Object.assign(new Error(`${host} does not resolve in the test`), { code: 'ENOTFOUND' });
};

async function attempt(port: number, timeoutMinutes: number) {
  const { dir, base } = makeRepo();
  const home = mkdtempSync(join(tmpdir(), 'baton-sandbox-home-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => rmSync(home, { recursive: true, force: true }));
  const env = {
    PATH: `${dirname(realBinary('claude-code'))}${delimiter}${process.env.PATH}`,
    HOME: home,
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-real-key',
    ANTHROPIC_BASE_URL: `http://${API_HOST}:${port}`,
  };
  const task = makeTask({
    base,
    backend: { uses: 'claude-code', env: {} },
    timeoutMinutes,
    // What the engine resolves for a claude-code agent: its model API only.
    sandbox: { network: { mode: 'allow', allow: ['api.anthropic.com'] }, limits: { cpuSeconds: null, memoryMb: null, processes: null }, required: false },
  });
  return runWorker(task, { cwd: dir, env, maxReprompts: 0, sandbox: { resolve, internalHosts: [API_HOST] } });
}

describe('claude-code behind the sandbox proxy (real CLI)', { timeout: 90_000 }, () => {
  it('reaches the allowed stand-in API host through the proxy, and nothing else is refused', async () => {
    const api = await loopbackApi(401, { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
    cleanups.push(api.close);
    const port = Number(new URL(api.url).port);
    const run = await attempt(port, 0.3);
    expect(api.requests()).toBeGreaterThan(0);
    expect(run.result.sandbox?.unreachable).toEqual([]);
    // Its telemetry is switched off behind the proxy (behindProxy): no refusals to show.
    expect(run.result.sandbox?.refused).toEqual([]);
    expect(run.result.status).not.toBe('succeeded');
  });

  it('an attempt whose model API host cannot be reached fails naming that host', async () => {
    const port = await closedPort();
    const run = await attempt(port, 0.4);
    expect(run.result.status).not.toBe('succeeded');
    expect(run.result.error).toContain(`the agent's model API could not be reached through the sandbox's proxy: ${API_HOST}:${port} (connecting to 127.0.0.1 port ${port} failed (ECONNREFUSED))`);
    expect(run.result.sandbox?.unreachable).toEqual([{ host: `${API_HOST}:${port}`, error: `connecting to 127.0.0.1 port ${port} failed (ECONNREFUSED)` }]);
  });
});
