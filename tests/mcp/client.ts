// The SDK's real Client over stdio, talking to `node bin/baton.js mcp` as an agent would.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from '../local/helpers.ts';

export interface Connected {
  client: Client;
  call(name: string, args: Record<string, unknown>, onprogress?: (p: { progress: number; message?: string }) => void): Promise<CallToolResult>;
  close(): Promise<void>;
  stderr: () => string;
}

export async function connect(cwd: string, env: NodeJS.ProcessEnv): Promise<Connected> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], cwd, env: env as Record<string, string>, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'baton-tests', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, args, onprogress) {
      const r = await client.callTool({ name, arguments: args }, undefined, { ...(onprogress && { onprogress }), timeout: 60_000 });
      return r as CallToolResult;
    },
    close: () => client.close(),
    stderr: () => err,
  };
}

export function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
