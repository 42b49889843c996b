/* global process, console, URL */
// A stand-in `claude` for the cost cap's end-to-end test (tests/agents/cost-cap.test.ts): it
// calls the Messages API through ANTHROPIC_BASE_URL as Claude Code does (the key's placeholder in
// `x-api-key`, streamed answers), writes a line of work to `progress.txt` after each answer, and
// goes on until SPEND_AGENT_CALLS answers or the API refuses. A refusal it reports as Claude Code
// reports an API error it does not retry: `API Error: <status> <body>` as the result, exit 1. It
// claims a cost of its own ($99) that baton must not believe. Plain JS: node only.
import { appendFileSync } from 'node:fs';
import { request } from 'node:http';

const env = process.env;
const calls = Number(env.SPEND_AGENT_CALLS ?? '50');

function call() {
  return new Promise((resolve) => {
    const url = new URL(`${env.ANTHROPIC_BASE_URL}/v1/messages`);
    const body = JSON.stringify({ model: 'claude-sonnet-4-5-20250929', max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'work on it' }] });
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'x-api-key': env.ANTHROPIC_API_KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' } }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', (e) => resolve({ status: 0, text: e.message }));
    req.end(body);
  });
}

for (let i = 1; i <= calls; i++) {
  const r = await call();
  if (r.status !== 200) {
    const message = `API Error: ${r.status} ${r.text}`;
    console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: message, total_cost_usd: 99, usage: {} }));
    process.exit(1);
  }
  appendFileSync('progress.txt', `step ${i}\n`);
}
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: '{"summary":"done"}', total_cost_usd: 99, usage: {} }));
