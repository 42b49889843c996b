// The sandbox wired into the worker: `runWorker`, running as the runner user on a machine
// where the fence's setup ran, starts every process of an attempt through it. The scenario
// (worker-scenario.ts) runs as root in a network and mount namespace of its own with a user
// database of its own: the machine's users and firewall are never touched, only loopback is
// used. Without the rights for that the test fails naming them (namespace.ts); it never skips.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SandboxReport } from '../../../src/engine/sandbox.ts';
import { runInNamespace } from './namespace.ts';
import { CANARY, OAUTH_CANARY } from './model-standin.ts';

const SCENARIO = fileURLToPath(new URL('./worker-scenario.ts', import.meta.url));

interface Run {
  status: string;
  error: string | null;
  outputs: Record<string, unknown> | null;
  sandbox: SandboxReport;
  changes: string[];
  transcript: string;
}
interface Out {
  runnerUid: number;
  agentUid: number;
  ports: { apiPort: number; directPort: number };
  directHeard: number;
  probe: Run;
  leftAfterProbe: number;
  cpu: Run;
  memory: Run;
  processes: Run;
  required: Run;
  requiredStarted: boolean;
  timedOut: Run;
  leftAfterTimeout: number;
  leftAtEnd: number;
  login: { fenced: boolean; code: number | null; stderr: string; seen: Record<string, string>; transcript: string; loginContent: string };
  keyAttempt: Run;
  keySeen: { modelPort: number; model: string; oauth: string; agentToken: string; agentKey: string; baseUrl: string; where: string[]; environsRead: number; filesRead: number; received: { host: string; path: string; auth: Record<string, string> }[] };
}

describe("the worker's sandbox, in a namespace of its own", () => {
  let out: Out;
  beforeAll(() => {
    out = JSON.parse(runInNamespace('worker', SCENARIO)) as Out;
  }, 180_000);

  it('runs the agent as its own user behind the proxy and the packet filter, and reports every protection in force', () => {
    expect(out.probe.status).toBe('succeeded');
    expect(out.probe.outputs!.uid).toBe(out.agentUid);
    expect(out.agentUid).not.toBe(out.runnerUid);
    expect(out.probe.sandbox).toMatchObject({ enforced: ['egress-proxy', 'packet-filter', 'agent-user', 'resource-limits'], missing: [], limit: null });
    expect(out.probe.transcript).toContain('baton: sandbox: proxy, filter, own user, limits · refused: evil.test (1)');
  });

  it('the model key and OAuth token reach the stand-in model API through the proxy and are nowhere the agent can read', () => {
    const { keyAttempt: run, keySeen: seen } = out;
    expect(run.status, run.error ?? '').toBe('succeeded');
    // The agent called its API through ANTHROPIC_BASE_URL on the proxy, holding a placeholder …
    expect(seen.agentKey).toBe('baton-proxy-holds-the-key-ANTHROPIC_API_KEY');
    expect(seen.agentToken).toBe('baton-proxy-holds-the-key-CLAUDE_CODE_OAUTH_TOKEN');
    expect(seen.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/baton-model\/anthropic$/);
    expect([seen.model, seen.oauth]).toEqual(['200:{"ok":true}', '200:{"ok":true}']);
    // … and the real key and token arrived at the model host, in the header the CLI sent each placeholder in.
    expect(seen.received).toEqual([
      { host: `api.anthropic.com:${seen.modelPort}`, path: '/v1/messages', auth: { 'x-api-key': CANARY } },
      { host: `api.anthropic.com:${seen.modelPort}`, path: '/v1/messages', auth: { authorization: `Bearer ${OAUTH_CANARY}` } },
    ]);
    // Its environment, every /proc environ and command line it could open, its home (no login
    // file handed over while the proxy holds a key), its checkout and temp folder: no canary.
    expect(seen.environsRead).toBeGreaterThan(0);
    expect(seen.filesRead).toBeGreaterThan(0);
    expect(seen.where).toEqual([]);
    expect(run.sandbox.modelKey).toEqual({ in: 'proxy' });
    expect(run.transcript).toContain('· key in the proxy');
  });

  it('the proxy refuses a host the step does not allow, and the report counts it', () => {
    expect(out.probe.outputs!.refusedHost).toBe('403');
    expect(out.probe.sandbox.refused).toContainEqual({ host: 'evil.test', count: 1 });
  });

  it('the proxy takes the agent to the allowed stand-in API host', () => {
    expect(out.probe.outputs!.allowedHost).toBe('200:api-here');
    expect(out.probe.sandbox.unreachable).toEqual([]);
  });

  it("a direct connection around the proxy to another user's loopback listener is refused, the listener hears nothing, and the report lists it by address", () => {
    expect(out.probe.outputs!.direct).toBe('ECONNREFUSED');
    expect(out.directHeard).toBe(0);
    expect(out.probe.sandbox.refused).toContainEqual({ host: `127.0.0.3:${out.ports.directPort}/tcp`, count: 1 });
  });

  it('a direct connection to a host beyond the job\'s own address fails at once, not at the client\'s timeout', () => {
    const testNet = out.probe.outputs!.testNet as { result: string; ms: number };
    expect(testNet.result).toBe('ECONNREFUSED');
    // The client gives up after 5 s; the refusal comes in milliseconds (1 s is room for a loaded machine).
    expect(testNet.ms).toBeLessThan(1000);
  });

  it('the report lists what the agent tried and nothing else: no resets to the job\'s own address', () => {
    // The lookup tried both resolvers of the scenario's resolv.conf.
    expect(out.probe.sandbox.refused.map((r) => r.host).sort()).toEqual(['127.0.0.3:' + out.ports.directPort + '/tcp', '127.0.0.1:53/udp', '127.0.0.53:53/udp', '192.0.2.2:443/tcp', 'evil.test'].sort());
  });

  it('the agent resolves no name', () => {
    expect(out.probe.outputs!.lookup).toBe('EAI_AGAIN');
    expect(out.probe.sandbox.refused.map((r) => r.host)).toContain('127.0.0.53:53/udp');
  });

  it("the agent cannot read the worker's environment", () => {
    expect(out.probe.outputs!.workerEnviron).toBe('EACCES');
  });

  it('files the agent made with modes that keep others out are still collected', () => {
    expect(out.probe.changes).toEqual(['private-dir/inner.txt', 'private-file.txt']);
  });

  it('nothing the agent left running survives its attempt, nor one stopped at its time limit', () => {
    expect(out.leftAfterProbe).toBe(0);
    expect(out.timedOut.status).toBe('timed-out');
    expect(out.leftAfterTimeout).toBe(0);
    expect(out.leftAtEnd).toBe(0);
  });

  it("a fenced agent signs in with the login files of the worker's home, handed over to its own home, and reads nothing else of the worker's home", () => {
    const { login } = out;
    expect(login.fenced).toBe(true);
    expect(login.code, login.stderr).toBe(0);
    expect(login.seen.login).toBe(login.loginContent);
    // Written by the agent's user, readable by it alone.
    expect(login.seen.mode).toBe(`600 ${out.agentUid}`);
    // Only the login file the runner has and can read: not the unreadable one, not another CLI's.
    expect(login.seen.homeFiles).toBe('./.claude ./.claude/.credentials.json');
    expect(login.seen.runnerFile).toBe('refused');
    // Nor what a later step left in the runner's home with modes open to all: each attempt closes the home again.
    expect(login.seen.lateFile).toBe('refused');
    expect(login.seen.runnerHome).toBe('refused');
    // The transcript names what was handed over and what could not be, never a file's content.
    expect(login.transcript).toContain("baton: handed the agent's home its login file (nothing else of the worker's home): ~/.claude/.credentials.json");
    expect(login.transcript).toContain('baton: the login file ~/.config/gh/hosts.yml could not be read (EACCES); the agent starts without it');
    expect(login.transcript).not.toContain('gemini');
    expect(login.transcript).not.toContain('stand-in-login');
  });

  it('a command past its CPU limit fails the attempt with the limit as its reason', () => {
    expect(out.cpu.status).toBe('crashed');
    expect(out.cpu.error).toMatch(/ran into its CPU limit \(1 s of CPU time per process\)/);
    expect(out.cpu.sandbox.limit).toBe('cpu');
  });

  it("a CLI whose tool ran into the memory or process limit fails the attempt with the limit named, not with the CLI's own words", () => {
    expect(out.memory.status).toBe('crashed');
    expect(out.memory.error).toMatch(/^the agent's memory limit of 256 MiB per process was reached/);
    expect(out.memory.sandbox.limit).toBe('memory');
    expect(out.memory.transcript).toContain('the-cli: a tool failed');
    expect(out.processes.status).toBe('crashed');
    expect(out.processes.error).toMatch(/^the agent's process limit of 40 was reached/);
    expect(out.processes.sandbox.limit).toBe('processes');
  });

  it('`sandbox: required` without the fence fails the attempt before the agent starts, naming each missing protection and why', () => {
    expect(out.requiredStarted).toBe(false);
    expect(out.required.status).toBe('crashed');
    expect(out.required.error).toMatch(/requires the sandbox .*the agent's own user, the packet filter and the resource limits \(the sandbox setup step did not run on this machine/);
    expect(out.required.sandbox).toMatchObject({ enforced: ['egress-proxy'], limit: null });
    expect(out.required.sandbox.missing.map((m) => m.protection)).toEqual(['agent-user', 'packet-filter', 'resource-limits']);
  });
});
