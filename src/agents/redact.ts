// Transcripts are uploaded as artifacts, which GitHub does not mask: an agent that echoes
// its environment must not publish the keys it was given.
import { BACKEND_IMPLS } from './backends/index.ts';

const CREDENTIAL_NAMES = new Set(Object.values(BACKEND_IMPLS).flatMap((b) => b.credentials));
const SECRET_LOOKING = /(TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY|CREDENTIALS)$/i;

/** The values to hide: credentials of any backend, and variables named like secrets. */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values = Object.entries(env)
    .filter(([k, v]) => v !== undefined && v.length >= 8 && (CREDENTIAL_NAMES.has(k) || SECRET_LOOKING.test(k)))
    .map(([, v]) => v!);
  // Longest first, so that a secret containing another is hidden whole.
  return [...new Set(values)].sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}
