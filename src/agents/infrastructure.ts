// Whether a failed agent run failed on infrastructure — the backend refused the credentials,
// was out of quota or rate-limited, could not be reached or was down, or its CLI was missing
// or crashed before any output — rather than on the work. Only infrastructure failures count
// towards setting an agent aside for its fallback (engine/breaker.ts), so anything unsure is
// the work's: a timeout, a cancel, invalid output, a CLI that reported a failure of its turn
// in words not listed here.
//
// The words are the backends' own failure shapes (sources in tests/fixtures/fake-agents/README.md
// and next to each rule): claude's `is_error` result ("Not logged in · Please run /login", "Invalid API key",
// "Credit balance is too low", "API Error: 529 … overloaded"), codex's `turn.failed` with the
// HTTP status ("unexpected status 401 Unauthorized", "429 Too Many Requests", "stream
// disconnected" after its reconnects), gemini's exit code 41 (FATAL_AUTHENTICATION_ERROR) and
// quota errors, aider's `litellm.<Name>Error` lines, opencode's `error` events
// (ProviderAuthError, APIError with a status), copilot's refusals on stderr.
import type { InfrastructureCause } from '../engine/events.ts';
import type { Backend } from '../manifest/types.ts';

export interface FailedRun {
  backend: Backend;
  /** Exit code; null when the process was killed or never started. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The failure the CLI reported in its own format, as the backend's parser read it. */
  reported?: string;
  /** The process could not be started (ENOENT: not installed). */
  spawnError?: NodeJS.ErrnoException | Error | null;
  /** Stopped by baton: its time limit or a cancel. Never infrastructure. */
  timedOut?: boolean;
  aborted?: boolean;
}

/** In order: the first that matches names the cause. Case-insensitive. */
const RULES: [InfrastructureCause, RegExp][] = [
  [
    'authentication',
    /(status|error|code)\W{0,3}401\b|unauthori[sz]ed|invalid[ _-]?(x-)?api[ _-]?key|incorrect api key|authentication[ _]?(error|failed|required)|ProviderAuthError|please run \/login|not logged in|no authentication information|missing bearer|set an auth method|(oauth|access) token (has )?expired|classic personal access tokens|credentials? (are |is )?(invalid|missing|expired|not found)/i,
  ],
  [
    'quota',
    /(status|error|code)\W{0,3}429\b|rate[ _-]?limit|quota|credit balance|billing|usage limit|too many requests|RESOURCE_EXHAUSTED|exceeded your current/i,
  ],
  [
    'network',
    /ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|getaddrinfo|network (is )?unreachable|stream disconnected|error sending request|connection (refused|reset|error)|socket hang up|fetch failed|APIConnectionError|could not resolve host/i,
  ],
  ['unavailable', /overloaded|service unavailable|ServiceUnavailableError|InternalServerError|internal server error|bad gateway|(status|error|code)\W{0,3}(500|502|503|504|529)\b/i],
];

/** Exit codes that are an infrastructure failure by themselves. */
const EXIT_CODES: Partial<Record<Backend, Record<number, InfrastructureCause>>> = {
  // gemini-cli packages/cli/src/utils/errors.ts: FatalAuthenticationError exits 41.
  gemini: { 41: 'authentication' },
};

/** The infrastructure cause of a failed run, or undefined when it failed on its work (or it is not sure). */
export function infrastructureCause(run: FailedRun): InfrastructureCause | undefined {
  if (run.timedOut || run.aborted) return undefined;
  if (run.spawnError) return (run.spawnError as NodeJS.ErrnoException).code === 'ENOENT' ? 'cli-missing' : 'cli-crashed';
  const byCode = run.code === null ? undefined : EXIT_CODES[run.backend]?.[run.code];
  if (byCode) return byCode;
  // The CLI's own report and its stderr: never the agent's answer, which may quote anything.
  const text = [run.reported ?? '', run.stderr].join('\n');
  for (const [cause, pattern] of RULES) if (pattern.test(text)) return cause;
  // A CLI that reported a failure of its own (a turn limit, a refused tool) failed on the work.
  if (run.reported) return undefined;
  // Exited non-zero (or was killed) before printing anything: it never got to work.
  if (run.code !== 0 && run.stdout.trim() === '') return 'cli-crashed';
  return undefined;
}
