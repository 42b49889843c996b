// Everything the worker hands on — the transcript artifact, result.json (error, outputs
// that end up in the public status comment), changed files, failure messages — passes
// through here. GitHub masks secrets in logs only, never in artifacts or comments, and an
// agent that got hold of a secret will not print it plainly: so each secret is also looked
// for base64- (at every byte alignment, so inside a longer encoded string such as a Basic
// auth header too), base64url-, URL- and hex-encoded, and split across lines (a wrapped
// line, `base64 -w`, or a `\n` escape inside JSON output).
import type { Json } from '../manifest/expressions.ts';
import { BACKEND_IMPLS } from './backends/index.ts';

const CREDENTIAL_NAMES = new Set(Object.values(BACKEND_IMPLS).flatMap((b) => b.credentials));
const SECRET_LOOKING = /(TOKEN|SECRET|PASSWORD|PASSWD|(^|_)KEY|API_KEY|PRIVATE_KEY|CREDENTIALS?|(^|_)PAT)$/i;
/** Shorter values are not hidden: they would turn ordinary words into `***`. */
export const MIN_LENGTH = 8;
const MASK = '***';

/** The values to hide: credentials of any backend, and variables named like secrets. */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values = Object.entries(env)
    .filter(([k, v]) => v !== undefined && v.length >= MIN_LENGTH && (CREDENTIAL_NAMES.has(k) || SECRET_LOOKING.test(k.replace(/-/g, '_'))))
    .map(([, v]) => v!);
  return [...new Set(values)];
}

/**
 * The part of base64(prefix + secret) that depends on the secret alone, for each of the
 * three byte alignments the secret can have inside a longer encoded string.
 */
function base64Cores(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64').replace(/=+$/, '');
    const first = Math.ceil((8 * k) / 6);
    const end = Math.floor((8 * (k + bytes.length)) / 6);
    out.push(encoded.slice(first, end));
  }
  return out;
}

/** Every form a secret is looked for in. */
export function secretForms(secret: string): string[] {
  // Whitespace inside a secret (a PEM key) is matched loosely below, like a split.
  const bytes = Buffer.from(secret, 'utf8');
  // The whole encoding first (it ends in a character that also depends on what follows).
  const whole = bytes.toString('base64');
  const forms = new Set<string>([secret, whole, whole.replace(/=+$/, ''), bytes.toString('base64url')]);
  for (const core of base64Cores(bytes)) {
    forms.add(core);
    forms.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  const url = encodeURIComponent(secret);
  forms.add(url);
  forms.add(url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()));
  forms.add(url.replace(/%20/g, '+'));
  forms.add(bytes.toString('hex'));
  forms.add(bytes.toString('hex').toUpperCase());
  return [...forms].filter((f) => f.replace(/\s/g, '').length >= MIN_LENGTH);
}

/** Between two characters of a secret: nothing, or line breaks and spaces, raw or escaped. */
const GAP = String.raw`(?:\s|\\[rnt])*`;

function escape(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** One pattern per form, longest first, so a secret containing another is hidden whole. */
function patterns(secrets: string[]): RegExp[] {
  const forms = new Set<string>();
  for (const s of secrets) for (const f of secretForms(s)) forms.add(f);
  return formPatterns(forms, 'g');
}

/** A pattern per form that also matches it split by line breaks and spaces, raw or escaped. */
export function formPatterns(forms: Iterable<string>, flags = ''): RegExp[] {
  return [...new Set(forms)]
    .map((f) => [...f.replace(/\s/g, '')])
    .sort((a, b) => b.length - a.length)
    .map((chars) => new RegExp(chars.map(escape).join(GAP), flags));
}

export interface Redactor {
  text(text: string): string;
  /** Every string in a JSON value (keys too). */
  json(value: Json): Json;
  /** File content: bytes outside the secrets are kept exactly. */
  bytes(content: Uint8Array): Uint8Array;
}

export function redactor(secrets: string[]): Redactor {
  const list = patterns(secrets.filter((s) => s.length >= MIN_LENGTH));
  const text = (t: string): string => {
    let out = t;
    for (const re of list) out = out.replace(re, MASK);
    return out;
  };
  const json = (v: Json): Json => {
    if (typeof v === 'string') return text(v);
    if (Array.isArray(v)) return v.map(json);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [text(k), json(x)]));
    return v;
  };
  const bytes = (content: Uint8Array): Uint8Array => {
    if (!list.length) return content;
    // latin1 maps each byte to one character and back, so other bytes survive untouched.
    const asText = Buffer.from(content).toString('latin1');
    const hidden = text(asText);
    return hidden === asText ? content : new Uint8Array(Buffer.from(hidden, 'latin1'));
  };
  return { text, json, bytes };
}

export function redact(text: string, secrets: string[]): string {
  return redactor(secrets).text(text);
}
