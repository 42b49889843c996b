// How fast the installed `baton` starts: `baton --help` (spawn → exit) and `baton mcp` (spawn →
// its answer to MCP's initialize), each beside bare Node (`node -e 0`) measured in the same run,
// interleaved, so that the ratio holds on a loaded machine. The CLI is the package's: built
// into a temporary folder laid out as the package (bin/ + dist/, no sources), so bin/baton.js
// takes the path an installed copy takes.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { BUNDLES, optionsFor, ROOT } from '../../scripts/build.ts';
import { median } from '../measure.ts';
import type { Figure } from './figure.ts';

const RUNS = 11;

/** Spawn → exit, in ms; rejects on a non-zero exit. */
function untilExit(args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: 'ignore' });
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`node ${args.join(' ')} exited with ${code}`))));
  });
}

/** Spawn → the server's answer to `initialize`, in ms; then closes its stdin so it exits. */
function untilInitialized(bin: string, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [bin, 'mcp'], { cwd, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    let answered = -1;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (answered < 0 && out.includes('"serverInfo"')) {
        answered = performance.now() - started;
        child.stdin.end();
      }
    });
    child.on('close', () => (answered >= 0 ? resolve(answered) : reject(new Error(`baton mcp did not answer initialize: ${out.slice(0, 200)}`))));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}

interface StartTimes {
  node: number;
  help: number;
  mcp: number;
}

async function measureStarts(): Promise<StartTimes> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-cli-'));
  try {
    mkdirSync(join(dir, 'pkg'));
    for (const entry of ['bin', 'package.json']) cpSync(join(ROOT, entry), join(dir, 'pkg', entry), { recursive: true });
    await build(optionsFor(BUNDLES.cli, join(dir, 'pkg')));
    const bin = join(dir, 'pkg/bin/baton.js');
    const times: Record<keyof StartTimes, number[]> = { node: [], help: [], mcp: [] };
    for (let i = -1; i < RUNS; i++) {
      const node = await untilExit(['-e', '0'], dir);
      const help = await untilExit([bin, '--help'], dir);
      const mcp = await untilInitialized(bin, dir);
      // The first round warms the file cache and is not counted.
      if (i < 0) continue;
      times.node.push(node);
      times.help.push(help);
      times.mcp.push(mcp);
    }
    return { node: median(times.node), help: median(times.help), mcp: median(times.mcp) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let cached: Promise<StartTimes> | undefined;
const starts = (): Promise<StartTimes> => (cached ??= measureStarts());

export const nodeBareMs: Figure = {
  name: 'node_bare_ms',
  description: '`node -e 0`, spawn to exit: the floor the two CLI figures are compared with (same run, interleaved)',
  unit: 'ms',
  measure: async () => (await starts()).node,
};

export const cliHelpMs: Figure = {
  name: 'cli_help_ms',
  description: 'the packaged `baton --help` (bin/baton.js → dist/cli.js), spawn to exit',
  unit: 'ms',
  measure: async () => (await starts()).help,
};

export const cliHelpVsNode: Figure = {
  name: 'cli_help_vs_node_ratio',
  description: 'cli_help_ms / node_bare_ms',
  unit: '×',
  target: { op: '<=', value: 4 },
  measure: async () => {
    const s = await starts();
    return s.help / s.node;
  },
};

export const mcpInitializeMs: Figure = {
  name: 'mcp_initialize_ms',
  description: 'the packaged `baton mcp`: spawn to its answer to MCP initialize',
  unit: 'ms',
  measure: async () => (await starts()).mcp,
};

export const mcpInitializeVsNode: Figure = {
  name: 'mcp_initialize_vs_node_ratio',
  description: 'mcp_initialize_ms / node_bare_ms',
  unit: '×',
  measure: async () => {
    const s = await starts();
    return s.mcp / s.node;
  },
};
