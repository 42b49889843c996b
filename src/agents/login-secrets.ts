// The secrets inside the login files a backend signs in with (`~/.claude/.credentials.json`,
// `~/.codex/auth.json`, gh's `hosts.yml`…): values of the job like its API keys, so redaction
// and the leak check (leak-check.ts) look for them in everything the worker hands on. An agent
// can read these files whether or not it is fenced (unfenced it is the worker's user; fenced,
// the sandbox hands them over), so a prompt-injected agent could copy a token into an output.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIN_LENGTH } from './redact.ts';

/** Keys whose values are credentials: tokens, keys, secrets, passwords. */
const SECRET_KEY = /token|secret|password|passwd|api_?key|private_?key|credential|refresh|access|(^|_)key$/i;

function fromJson(v: unknown, key: string, out: Set<string>): void {
  if (typeof v === 'string') {
    if (v.length >= MIN_LENGTH && SECRET_KEY.test(key)) out.add(v);
  } else if (Array.isArray(v)) {
    for (const x of v) fromJson(x, key, out);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) fromJson(x, SECRET_KEY.test(k) ? k : key && SECRET_KEY.test(key) ? key : k, out);
  }
}

/** The credential values in one login file's text: JSON, or `key: value` / `key = value` lines (YAML, INI). */
export function secretsInLoginFile(text: string): string[] {
  const out = new Set<string>();
  try {
    fromJson(JSON.parse(text), '', out);
    return [...out];
  } catch {
    // not JSON: read it line by line
  }
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*-?\s*["']?([\w.-]+)["']?\s*[:=]\s*["']?([^"'\s#]+)["']?\s*$/.exec(line);
    if (m && SECRET_KEY.test(m[1]!) && m[2]!.length >= MIN_LENGTH) out.add(m[2]!);
  }
  return [...out];
}

/** The credential values of every login file of `files` present under `home` (unreadable ones are skipped). */
export function loginFileSecrets(home: string | undefined, files: readonly string[]): string[] {
  if (!home) return [];
  const out: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(join(home, file), 'utf8');
    } catch {
      continue;
    }
    out.push(...secretsInLoginFile(text));
  }
  return out;
}
