/* global process, console, URL */
// A stand-in `claude` for the worker's sandbox scenario (worker-scenario.ts), started by runWorker
// as the claude-code backend: it calls its model API the way Claude Code does (ANTHROPIC_BASE_URL,
// an API key in `x-api-key`, an OAuth token as a bearer token), then gathers everything it can read that could hold a key — its
// environment, /proc (every environ and command line it may open), its home, its checkout, its
// temp folder — into the file KEY_AGENT_SAW names (outside its home and checkout), for the
// scenario to search for the canary. It answers as
// `claude -p --output-format json` does. Plain JS: it runs as the agent's user, with node only.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';

const env = process.env;

/** One call of the Messages API, its credential in `headers`. */
function call(headers) {
  return new Promise((resolve) => {
    const url = new URL(`${env.ANTHROPIC_BASE_URL}/v1/messages`);
    const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(`${res.statusCode}:${body}`));
    });
    req.on('error', (e) => resolve(e.code ?? e.message));
    req.end('{"model":"claude-stand-in","messages":[]}');
  });
}

const read = (p) => {
  try {
    return readFileSync(p, 'latin1');
  } catch (e) {
    return `(${e.code})`;
  }
};

/** Every regular file under `dir` it may read (at most 2,000), by path. */
function files(dir, out = {}, depth = 0) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    if (Object.keys(out).length >= 2000 || depth > 12) break;
    const p = join(dir, n);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) files(p, out, depth + 1);
    else if (st.isFile() && st.size < 1_000_000) out[p] = read(p);
  }
  return out;
}

// With an API key in `x-api-key`, and as Claude Code sends an OAuth token: `Authorization: Bearer`.
const saw = { model: await call({ 'x-api-key': env.ANTHROPIC_API_KEY }), oauth: await call({ authorization: `Bearer ${env.CLAUDE_CODE_OAUTH_TOKEN}` }), env, proc: {}, files: {} };
for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
  saw.proc[pid] = { environ: read(`/proc/${pid}/environ`), cmdline: read(`/proc/${pid}/cmdline`) };
}
for (const dir of [env.HOME, process.cwd(), dirname(env.BATON_OUTPUT)]) files(dir, saw.files);
writeFileSync(env.KEY_AGENT_SAW, JSON.stringify(saw));
console.log(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'looked around', usage: {} }));
