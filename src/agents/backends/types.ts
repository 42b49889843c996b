// One interface for every agent CLI baton can drive. A backend only knows its CLI: how to
// call it non-interactively and how to read what it printed. Running the process, the
// timeout, extraction, validation and re-prompting are the worker's (../worker.ts).
import type { StopLimit } from '../../engine/types.ts';
import type { AgentSpec, Backend, JsonSchema } from '../../manifest/types.ts';
import type { McpServers } from './mcp-config.ts';
import type { KeySlot, ModelApi } from '../sandbox/proxy-models.ts';
import type { CostUnmetered } from '../../engine/events.ts';

/**
 * How a CLI is installed: `{ npm: pkg }` from baton's lockfile of it (agent-clis/<backend>/,
 * src/agents/install/), `{ pipx: pkg }` with pipx at the pinned version.
 */
export type InstallForm = { npm: string } | { pipx: string };

/**
 * The shell command a person runs to install a backend's CLI at its pinned version by hand
 * (null: nothing to install); the worker workflow installs from baton's lockfiles instead.
 */
export function installCommand(b: Pick<AgentBackend, 'install' | 'version'>): string | null {
  if (!b.install) return null;
  const at = b.version ? `${'npm' in b.install ? '@' : '=='}${b.version}` : '';
  if ('npm' in b.install) return `npm install -g ${b.install.npm}${at}`;
  return `pipx install ${b.install.pipx}${at}`;
}

export interface Usage {
  costUsd?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** costUsd was worked out from token counts and a price table, not reported by the CLI. */
  costEstimated?: boolean;
  /** Why no cost was metered (the CLI keeps its model key: engine/events.ts). */
  costUnmetered?: CostUnmetered;
}

export interface InvocationOptions {
  /** A private folder outside the checkout for files the CLI is handed (a message file). */
  tmpDir: string;
  /** False for steps that must not change files: backends that can forbid edits do. */
  writes: boolean;
  /** The step's outputs schema, for CLIs with native structured output (claude --json-schema). */
  outputsSchema?: JsonSchema | null;
  /** The worker runs as root (a container job): claude needs IS_SANDBOX=1 to skip permissions then. */
  root?: boolean;
  /** The agent's MCP servers, resolved (`agents.<name>.mcp-servers`); absent when it has none. */
  mcpServers?: McpServers;
  /**
   * A private folder outside the checkout (and outside what tmpParent picks), removed after
   * the run: where CLI configuration baton writes goes (MCP servers), never into the changes.
   */
  configDir?: string;
  /**
   * The model APIs whose key the sandbox's proxy holds, each with the base URL on the proxy
   * (`http://127.0.0.1:<port>/baton-model/<api>`, without the API's own version path): the CLI is
   * pointed there by its own setting. Absent: the CLI talks to its API itself.
   */
  modelBaseUrls?: Partial<Record<ModelApi, string>>;
}

export interface Invocation {
  /** argv[0] is the program, looked up on PATH. */
  argv: string[];
  /** Written to the process's stdin, which is then closed; stdin is empty when absent. */
  stdin?: string;
  /** Added to the environment (after the step's own env). */
  env: Record<string, string>;
  /** Files to write before spawning (absolute paths inside tmpDir or configDir), e.g. aider's message file. */
  files?: Record<string, string>;
}

export interface Parsed {
  /** The agent's last message: where the result JSON is looked for when BATON_OUTPUT is empty. */
  finalMessage: string;
  usage: Usage;
  /** Set when the CLI reported a failure in its own output (e.g. claude's `is_error`). */
  error?: string;
  /** The result the CLI itself produced against the outputs schema (claude's structured_output). */
  structured?: unknown;
  /** The CLI said a limit of its own stopped it (claude's `error_max_turns`): the attempt can be resumed with it raised. */
  limit?: StopLimit;
}

export interface AgentBackend {
  name: Backend;
  /** The executable, or null when the spec names it (`command`). */
  binary: string | null;
  /**
   * How to get the binary at `version`: an npm package (installed from baton's lockfile)
   * or a pipx one; null where baton installs nothing (`command`). installCommand() renders
   * it for messages to people.
   */
  install: InstallForm | null;
  /**
   * The CLI version baton is tested against, which the workflows `baton init` writes install;
   * null where baton installs nothing (`command`). The one place these versions live.
   */
  version: string | null;
  /**
   * Environment variables that authenticate the CLI; any one of them is enough.
   * Empty: nothing needed (or nothing baton can check).
   */
  credentials: string[];
  /**
   * Variables people set for this CLI that it does not read, with what to do instead (codex
   * and OPENAI_API_KEY): preflight and doctor say so rather than "needs credentials".
   */
  notEnough?: Record<string, string>;
  /**
   * Credentials the CLI accepts only beside a switch of `credentials` (gemini's GOOGLE_API_KEY
   * with GOOGLE_GENAI_USE_VERTEXAI=true), which credentialProblem checks: with `credentials`,
   * every key name the docs may mention (tests/docs/secret-names.test.ts holds them to it).
   */
  alternativeCredentials?: string[];
  /** A credential that is only a switch, with the variables it needs too (CLAUDE_CODE_USE_VERTEX → its region and project). */
  credentialCompanions?: Record<string, string[]>;
  /** Files under $HOME a CLI keeps a stored login in (`claude login`, `codex login`…). */
  loginFiles: string[];
  /**
   * The credentials the sandbox's proxy can hold for this CLI: the variable, the model API it is
   * for, and where the CLI sends it (src/agents/sandbox/proxy-models.ts). The CLI then gets the
   * variable's placeholder and a base URL on the proxy (`modelBaseUrls`). A credential of
   * `credentials` that is not here (Bedrock, Vertex, a GitHub token) stays in the agent.
   */
  heldKeys?: Record<string, { api: ModelApi; slot: KeySlot }>;
  /**
   * The folder the worker's private temp folder (tmpDir, BATON_OUTPUT) is made in, for CLIs
   * whose file tools cannot reach the system temp folder; the default is the system's.
   * A folder inside the checkout is removed before the changes are collected.
   */
  tmpParent?(cwd: string, env: NodeJS.ProcessEnv): string;
  /** Names in the checkout's root the CLI writes for itself (caches): removed after a run unless they were there before. */
  scratch?: string[];
  /**
   * Added to the CLI's environment when it runs behind the sandbox's egress proxy: switches
   * that keep it from calling hosts that are not its model API (telemetry, update checks), so
   * that they do not show as refused in every step's record.
   */
  behindProxy?: Record<string, string>;
  /** A reason the credentials that are set cannot work (a token kind the CLI refuses), or null. */
  credentialProblem?(env: NodeJS.ProcessEnv): string | null;
  invocation(spec: AgentSpec, prompt: string, opts: InvocationOptions): Invocation;
  /** `spec` is the agent's spec, for figures that depend on it (the model's price). */
  parse(stdout: string, stderr: string, spec?: AgentSpec): Parsed;
}

/** Linux refuses one argv string over 128 KiB (MAX_ARG_STRLEN); leave room for the rest. */
export const MAX_PROMPT_ARG = 100_000;

/**
 * For CLIs that only take the prompt as an argument: a prompt too long for argv goes to a
 * file in tmpDir, and the argument points at it.
 */
export function promptArgument(prompt: string, opts: InvocationOptions, files: Record<string, string>): string {
  if (Buffer.byteLength(prompt) <= MAX_PROMPT_ARG) return prompt;
  const path = `${opts.tmpDir}/prompt.md`;
  files[path] = prompt;
  return `Your task is too long for the command line; it is in the file ${path}. Read that file completely and do what it says.`;
}

/** Sums usage figures, keeping a field absent when no part reported it. */
export function addUsage(a: Usage, b: Usage): Usage {
  const out: Usage = { ...a };
  for (const k of ['costUsd', 'inputTokens', 'outputTokens'] as const) {
    if (typeof b[k] === 'number' && Number.isFinite(b[k])) out[k] = (out[k] ?? 0) + b[k]!;
  }
  if (b.costEstimated && b.costUsd !== undefined) out.costEstimated = true;
  if (out.costUsd !== undefined) out.costUsd = Math.round(out.costUsd * 1e6) / 1e6;
  return out;
}

/** Parses one JSON value per line, skipping lines that are not JSON (progress, warnings). */
export function jsonLines(text: string): any[] {
  const out: any[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t.startsWith('{')) continue;
    try {
      out.push(JSON.parse(t));
    } catch {
      // a line that only looks like JSON
    }
  }
  return out;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
