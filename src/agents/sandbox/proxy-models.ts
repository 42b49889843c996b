// The model APIs the egress proxy serves on its own port, so that the agent never holds a model
// credential. The agent's CLI is pointed at `http://127.0.0.1:<proxy port>/baton-model/<api>/…`
// (each backend's own base-URL setting, src/agents/backends/*.ts) and holds a placeholder where
// its key would be; the proxy sends the request on to the API's host over HTTPS, and puts the
// real credential in the request on the way out — only when the request carried that
// credential's placeholder in the header the CLI sends it in, only to that API's host. A request
// that carries anything else goes out with no credential at all: whatever an agent sends, what
// it can learn is its placeholder.
//
// Plain HTTP on loopback because a CONNECT tunnel is TLS end to end: the proxy could not add a
// header inside it. Loopback never leaves the machine, and the fence admits the agent's user to
// loopback only on the proxy's port.

/** The model APIs served, by the path segment after `/baton-model/`. */
export const MODEL_APIS = {
  // docs.anthropic.com API reference: `x-api-key`, or `Authorization: Bearer` for OAuth tokens.
  anthropic: 'api.anthropic.com',
  // platform.openai.com API reference: `Authorization: Bearer`.
  openai: 'api.openai.com',
  // ai.google.dev Gemini API reference: `x-goog-api-key` header or `?key=`.
  google: 'generativelanguage.googleapis.com',
} as const;
export type ModelApi = keyof typeof MODEL_APIS;

export const MODEL_PATH = '/baton-model/';

/** Where the proxy sends one API's requests: `https://<host>:<port><prefix><path>`, or plain `http:` for a gateway the job names so. */
export interface ModelUpstream {
  secure: boolean;
  host: string;
  port: number;
  /** Prepended to the request's path (a gateway's `/anthropic`); '' for the API itself. */
  prefix: string;
}

/**
 * The variables a job sets to send an API's requests to a gateway of its own instead of the
 * API's host (Claude Code and litellm: ANTHROPIC_BASE_URL, ANTHROPIC_API_BASE; the OpenAI SDKs
 * and litellm: OPENAI_BASE_URL, OPENAI_API_BASE; gemini-cli: GOOGLE_GEMINI_BASE_URL; litellm:
 * GEMINI_API_BASE). The CLI is pointed at the proxy instead; the proxy sends on to the gateway.
 */
export const BASE_URL_VARIABLES: Record<ModelApi, readonly string[]> = {
  anthropic: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_BASE'],
  openai: ['OPENAI_BASE_URL', 'OPENAI_API_BASE'],
  google: ['GOOGLE_GEMINI_BASE_URL', 'GEMINI_API_BASE'],
};

/**
 * Where `api`'s requests go: the gateway the job's environment names (its path kept as a prefix;
 * OpenAI's `/v1`, which the CLI's own base URL on the proxy carries, taken off), else the API's
 * host on 443. A URL that does not parse as http(s) is no gateway.
 */
export function upstreamFor(api: ModelApi, env: Record<string, string | undefined>): ModelUpstream {
  for (const name of BASE_URL_VARIABLES[api]) {
    const raw = env[name];
    if (!raw) continue;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      continue;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') continue;
    const secure = url.protocol === 'https:';
    let prefix = url.pathname.replace(/\/+$/, '');
    if (api === 'openai') prefix = prefix.replace(/\/v1$/, '');
    return { secure, host: url.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port: url.port ? Number(url.port) : secure ? 443 : 80, prefix };
  }
  return { secure: true, host: MODEL_APIS[api], port: 443, prefix: '' };
}

/** Where a CLI sends its key: `x-api-key`, `Authorization: Bearer`, or Google's `x-goog-api-key` / `?key=`. */
export type KeySlot = 'x-api-key' | 'bearer' | 'goog';

/** One credential the proxy holds for the attempt. */
export interface HeldKey {
  /** The job's variable it came from (ANTHROPIC_API_KEY, CLAUDE_CODE_OAUTH_TOKEN…). */
  name: string;
  api: ModelApi;
  slot: KeySlot;
  /** The real value: in the worker's process only. */
  value: string;
  /** What the agent's environment holds instead. */
  placeholder: string;
}

/** The agent's stand-in for a key: says where the key is, names the variable, carries nothing of it. */
export function placeholderFor(name: string): string {
  return `baton-proxy-holds-the-key-${name}`;
}

/** `http://127.0.0.1:<port>/baton-model/<api>`: what a CLI's base-URL setting gets (without a trailing slash). */
export function modelBaseUrl(proxyUrl: string, api: ModelApi): string {
  return `${proxyUrl}${MODEL_PATH}${api}`;
}

/** The API and the path on its host of a request to the proxy's model path; null when the path is not one. */
export function modelTarget(path: string): { api: ModelApi; path: string } | null {
  if (!path.startsWith(MODEL_PATH)) return null;
  const rest = path.slice(MODEL_PATH.length);
  const end = rest.search(/[/?]/);
  const name = end < 0 ? rest : rest.slice(0, end);
  if (!Object.hasOwn(MODEL_APIS, name)) return null;
  const tail = end < 0 ? '' : rest.slice(end);
  return { api: name as ModelApi, path: tail.startsWith('?') ? `/${tail}` : tail || '/' };
}

/** Request headers that carry a credential, whoever's: none of them leaves as the agent sent it. */
const AUTH_HEADERS = new Set(['authorization', 'x-api-key', 'x-goog-api-key', 'proxy-authorization', 'cookie']);

/**
 * The headers (raw name/value pairs, hop-by-hop ones already dropped) and the path of a model
 * request as they leave for the API's host: every credential the agent sent taken out, and the
 * held key of `api` put in its slot when the agent sent that key's placeholder there.
 */
export function withHeldKey(api: ModelApi, rawHeaders: string[], path: string, keys: readonly HeldKey[]): { headers: string[]; path: string; key: string | null } {
  const sent = new Map<string, string>();
  const headers: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (AUTH_HEADERS.has(name)) sent.set(name, rawHeaders[i + 1]!);
    else headers.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  const q = path.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : path.slice(q + 1));
  const queryKey = params.get('key');
  params.delete('key');
  const query = params.toString();
  const outPath = (q < 0 ? path : path.slice(0, q)) + (query ? `?${query}` : '');
  for (const k of keys) {
    if (k.api !== api) continue;
    if (k.slot === 'x-api-key' && sent.get('x-api-key') === k.placeholder) return { headers: [...headers, 'x-api-key', k.value], path: outPath, key: k.name };
    if (k.slot === 'bearer' && sent.get('authorization') === `Bearer ${k.placeholder}`) return { headers: [...headers, 'Authorization', `Bearer ${k.value}`], path: outPath, key: k.name };
    if (k.slot === 'goog' && (sent.get('x-goog-api-key') === k.placeholder || queryKey === k.placeholder)) return { headers: [...headers, 'x-goog-api-key', k.value], path: outPath, key: k.name };
  }
  return { headers, path: outPath, key: null };
}
