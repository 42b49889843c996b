/* global process */
// What the demo's stand-in agents share: read the prompt, report a result the way baton's
// `command` backend expects (the file named by BATON_OUTPUT, and a JSON block on stdout).
import { readFileSync, writeFileSync } from 'node:fs';

export function readPrompt() {
  return readFileSync(0, 'utf8');
}

export function report(result) {
  const json = JSON.stringify(result);
  if (process.env.BATON_OUTPUT) writeFileSync(process.env.BATON_OUTPUT, `${json}\n`);
  process.stdout.write(`\n\`\`\`json\n${json}\n\`\`\`\n`);
}
