// Runs a real agent CLI (installed by scripts/agent-clis/install.ts, which `npm run
// test:contract` runs first: tests/setup/agent-clis.ts) and its fake from
// tests/fixtures/fake-agents the same way: the argv, stdin and environment baton's backend
// builds, no credentials, HOME in a temp folder, every proxy pointed at a closed loopback
// port, stdin a pipe (never a terminal), and a time limit — a CLI that waits for a
// terminal or a network forever fails the test instead of hanging it.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { installed, npmCli } from '../../../scripts/agent-clis/cache.ts';
import type { Invocation } from '../../../src/agents/backends/types.ts';
import type { AgentSpec, Backend } from '../../../src/manifest/types.ts';
import { FAKE_AGENTS, makeRepo } from '../helpers.ts';

/** Every message a CLI's option parser prints for an argument it does not take. */
export const USAGE_ERROR = /unknown option|unknown argument|unexpected argument|unrecognized argument|invalid value|is invalid|invalid command format|usage:/i;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The process had to be killed at the time limit. */
  timedOut: boolean;
  ms: number;
}

/** The real CLI's executable; fails (never skips) when it is not installed, saying how to install it. */
export function realBinary(name: Backend): string {
  const cli = npmCli(name);
  if (!installed(cli)) {
    throw new Error(`${cli.pkg}@${cli.version} is not installed for the contract tests; run them with \`npm run test:contract\`, which installs it, or install it with \`npx tsx scripts/agent-clis/install.ts ${name}\``);
  }
  return cli.bin;
}

export function fakeBinary(name: Backend): string {
  return join(FAKE_AGENTS, npmCli(name).backend.binary!);
}

/** A loopback port nothing listens on: connections to it are refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A loopback HTTP server that answers every request with one status and JSON body (a provider API refusing a request without a key). */
export async function loopbackApi(status: number, body: unknown): Promise<{ url: string; requests: () => number; bodies: () => string[]; close: () => Promise<void> }> {
  let count = 0;
  // What the CLI sent (JSON request bodies): what it asked the provider for, e.g. codex's output schema.
  const bodies: string[] = [];
  const server: Server = createServer((req, res) => {
    count++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (chunks.length) bodies.push(Buffer.concat(chunks).toString('utf8'));
      const text = JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    bodies: () => [...bodies],
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export interface Scenario {
  /** The checkout the CLI runs in: a fresh git repository, as the worker's. */
  cwd: string;
  home: string;
  invocation: Invocation;
  /** The environment both the real CLI and the fake get. */
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export interface ScenarioOptions {
  spec?: Partial<AgentSpec>;
  writes?: boolean;
  /** Added after the backend's own env (credentials a scenario needs, or '' to take one away). */
  env?: NodeJS.ProcessEnv;
  /** Files to put in HOME before the run (settings the user may have). */
  homeFiles?: Record<string, string>;
}

export const STEP_SCHEMA = { type: 'object', required: ['summary'], properties: { summary: { type: 'string' } }, additionalProperties: false };

/**
 * The invocation baton's backend builds for a step (its own builder: flags are never retyped
 * here), with a model, a turn limit and the outputs schema so every optional flag is passed.
 */
export async function scenario(name: Backend, o: ScenarioOptions = {}): Promise<Scenario> {
  const root = mkdtempSync(join(tmpdir(), `baton-contract-${name}-`));
  const home = join(root, 'home');
  mkdirSync(home);
  const { dir: cwd } = makeRepo(join(root, 'checkout'));
  const tmpDir = join(root, 'work');
  mkdirSync(tmpDir);
  const backend = npmCli(name).backend;
  const spec: AgentSpec = { uses: name, env: {}, maxTurns: 3, ...o.spec };
  const invocation = backend.invocation(spec, 'Say hello. End with {"summary": "hello"} in a json block.', {
    tmpDir,
    writes: o.writes ?? true,
    outputsSchema: STEP_SCHEMA,
    root: process.getuid?.() === 0,
  });
  for (const [path, content] of Object.entries(invocation.files ?? {})) writeFileSync(path, content);
  for (const [path, content] of Object.entries(o.homeFiles ?? {})) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), content);
  }
  const proxy = `http://127.0.0.1:${await closedPort()}`;
  const env: NodeJS.ProcessEnv = {
    // Only what a CLI needs to start: no credential of this machine leaks in.
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    ALL_PROXY: proxy,
    // Loopback stand-ins for a provider API are reached directly.
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    ...invocation.env,
    ...o.env,
  };
  return { cwd, home, invocation, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Runs one executable with the scenario's argv (after argv[0]), stdin and environment. */
export function run(binary: string, s: Scenario, timeoutMs: number, argv = s.invocation.argv.slice(1)): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // Its own process group, so a CLI's children are stopped with it at the time limit.
    const child = spawn(binary, argv, { cwd: s.cwd, env: s.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.on('error', () => {}); // a CLI that exits before reading its stdin
    child.stdin.end(s.invocation.stdin ?? '');
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, 'SIGKILL'); // anything it left running
      } catch {
        // none
      }
      resolve({ code, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

/** Runs the real CLI and then the fake on the same scenario. */
export async function both(name: Backend, s: Scenario, timeoutMs: number, argv?: string[]): Promise<{ real: Run; fake: Run }> {
  const real = await run(realBinary(name), s, timeoutMs, argv);
  const fake = await run(fakeBinary(name), s, timeoutMs, argv);
  return { real, fake };
}

/** The run ended on its own, in time, and its option parser took every flag. */
export function expectRanOnItsOwn(r: Run, limitMs: number): void {
  expect(r.timedOut, `still running after ${limitMs / 1000}s; stdout: ${r.stdout.slice(-500)} stderr: ${r.stderr.slice(-500)}`).toBe(false);
  expect(r.code).not.toBeNull();
  expect(`${r.stdout}\n${r.stderr}`).not.toMatch(USAGE_ERROR);
}

/** ANSI colour codes some CLIs put around their messages. */
export function plain(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

/** The JSON value printed from the first line that starts one to the end of the stream. */
export function trailingJson(text: string): unknown {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('{') || l.startsWith('['));
  if (start < 0) throw new Error(`no JSON in: ${text.slice(0, 500)}`);
  return JSON.parse(lines.slice(start).join('\n'));
}

/** Each JSON line of a JSONL stream (other lines are skipped). */
export function jsonl(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

/** The type of each value by path: `{ "error.code": "number", … }`; arrays as `[]`. */
export function typesByPath(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (Array.isArray(value)) {
    out[prefix || '.'] = 'array';
    value.forEach((v) => typesByPath(v, `${prefix}[]`, out));
  } else if (value !== null && typeof value === 'object') {
    if (prefix) out[prefix] = 'object';
    for (const [k, v] of Object.entries(value)) typesByPath(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out[prefix || '.'] = value === null ? 'null' : typeof value;
  }
  return out;
}

/**
 * The fake prints nothing the real CLI does not (each of its fields is one of the real
 * one's, of the same type), and every field baton reads is in both with the same type.
 */
export function expectSameJsonShape(real: unknown, fake: unknown, read: string[]): void {
  const r = typesByPath(real);
  const f = typesByPath(fake);
  const extra = Object.keys(f).filter((k) => !(k in r) || (r[k] !== f[k] && !(r[k] === 'null' || f[k] === 'null')));
  expect(extra.map((k) => `${k}: fake ${f[k]}, real ${r[k] ?? 'absent'}`)).toEqual([]);
  for (const k of read) {
    expect(r[k], `real CLI has no ${k}`).toBeDefined();
    expect(f[k], `fake has no ${k}`).toBe(r[k]);
  }
}
