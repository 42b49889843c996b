// `baton mcp`: the server over stdio (stdout is the protocol; diagnostics go to stderr).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildServer } from './server.ts';

export async function serveStdio(): Promise<void> {
  const { server, local } = buildServer();
  const transport = new StdioServerTransport();
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
  });
  // Let runs started from this session reach a stop they can resume from.
  await local.idle();
}
