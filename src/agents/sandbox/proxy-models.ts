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
