// The environment an agent gets on a runner: the job's, minus what would let text from an
// issue steer the job itself. The runner hands a JavaScript action tokens for artifacts,
// caches and OIDC; an agent that reads untrusted text must not be able to use them — nor
// read them from its parent's /proc/<pid>/environ, so the worker that starts the agent
// must not hold them at all (tokensHeld).
const WITHHELD = [
  // The step's command files: what the agent wrote there would steer the later steps
  // (they are put back after it anyway, command-files.ts).
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_OUTPUT',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
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

/**
 * Tokens this process holds that its agent could read from /proc/<this pid>/environ: the
 * runner gives ACTIONS_RUNTIME_TOKEN and the OIDC request token to `uses:` steps only, and
 * a non-empty `token` input arrives as INPUT_TOKEN. Empty when the worker runs from a
 * `run:` step as `baton init` writes it.
 */
export function tokensHeld(env: NodeJS.ProcessEnv): string[] {
  return ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'INPUT_TOKEN'].filter((k) => (env[k] ?? '') !== '');
}
