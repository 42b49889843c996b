// The environment an agent gets on a runner: the job's, minus what would let text from an
// issue steer the job itself. The runner hands a JavaScript action tokens for artifacts,
// caches and OIDC; an agent that reads untrusted text must not be able to use them.
const WITHHELD = [
  'ACTIONS_RUNTIME_TOKEN',
  'ACTIONS_RUNTIME_URL',
  'ACTIONS_RESULTS_URL',
  'ACTIONS_CACHE_URL',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN',
  'ACTIONS_ID_TOKEN_REQUEST_URL',
];

export function agentEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    // INPUT_* are this Action's own inputs (the token among them).
    if (k.startsWith('INPUT_') || WITHHELD.includes(k)) continue;
    out[k] = v;
  }
  return out;
}
