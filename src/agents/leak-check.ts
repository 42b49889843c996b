// The one door between the worker and everything that leaves it. Whatever the worker hands
// on — the result artifact (anyone who can read the repository's Actions can download it),
// the job summary, the changed files' paths and contents, outputs, errors, the transcript —
// is walked here, whole and generically (a field added tomorrow is walked too), and checked
// for the job's secrets in every form redact.ts knows, reversed, and in any text encoding a
// file can use (UTF-8, UTF-16 LE or BE, with or without a byte-order mark). A hit withholds
// the whole result: the attempt fails with a message that names where, never what.
//
// Redaction (redact.ts) runs before this and masks the forms it knows in contents. Neither is
// the model key's defence: the agent never holds that key — the sandbox's egress proxy does,
// and the agent's environment has a placeholder (sandbox/proxy-keys.ts) — so nothing it writes
// can carry it, in any encoding. This door is the second line, for the secrets an agent does
// hold (an MCP server's token, a credential the proxy cannot hold: the step's sandbox line then
// says "key in the agent") and for slips of the worker's own. It finds the forms it lists, and
// no list of encodings is complete: char codes, ROT13, base32 or a dot between characters
// pass it (tests/security/round3-key.test.ts).
import { formPatterns, MIN_LENGTH, secretForms } from './redact.ts';

declare const SEALED: unique symbol;
/** A value that passed the door: the only kind the result artifact may be written from. */
export type Sealed<T> = T & { readonly [SEALED]: true };

const reverse = (s: string): string => [...s].reverse().join('');

/** Every form of every secret the door looks for: redaction's, the same reversed, and those of the reversed secret. */
function leakPatterns(secrets: string[]): RegExp[] {
  const forms = new Set<string>();
  for (const s of secrets.filter((x) => x.length >= MIN_LENGTH)) {
    for (const f of [...secretForms(s), ...secretForms(reverse(s))]) {
      forms.add(f);
      forms.add(reverse(f));
    }
  }
  const list = formPatterns(forms);
  // One alternation: each text is scanned once, however many secrets and forms.
  return list.length ? [new RegExp(list.map((re) => `(?:${re.source})`).join('|'))] : [];
}

/** Each way the bytes of a file can be read as text; UTF-16 at both byte offsets (a BOM, or none, or a stray byte before). */
function readings(bytes: Uint8Array): [string, string][] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: [string, string][] = [
    ['UTF-8', buf.toString('utf8')],
    ['bytes', buf.toString('latin1')],
  ];
  if (buf.length < 2) return out;
  const swapped = Buffer.from(buf.subarray(0, buf.length - (buf.length % 2))).swap16();
  const odd = buf.subarray(1, 1 + ((buf.length - 1) & ~1));
  out.push(['UTF-16 LE', buf.toString('utf16le')], ['UTF-16 BE', swapped.toString('utf16le')]);
  out.push(['UTF-16 LE', odd.toString('utf16le')], ['UTF-16 BE', Buffer.from(odd).swap16().toString('utf16le')]);
  return out;
}

/**
 * Where `value` carries one of `secrets`, as places a person can read without learning the
 * secret: "the path of changed file 2", "the content of notes.txt (UTF-16 LE)", "result.outputs".
 */
export function leaksIn(value: unknown, secrets: string[]): string[] {
  const list = leakPatterns(secrets);
  if (!list.length) return [];
  const hit = (text: string): boolean => list.some((re) => re.test(text));
  const found: string[] = [];
  const walk = (v: unknown, where: string): void => {
    if (typeof v === 'string') {
      if (hit(v)) found.push(where);
    } else if (v instanceof Uint8Array) {
      const how = readings(v).find(([, text]) => hit(text));
      if (how) found.push(`${where} (${how[0]})`);
    } else if (v instanceof Map) {
      let i = 0;
      for (const [k, x] of v) {
        i++;
        const named = typeof k === 'string' && !hit(k);
        if (!named) found.push(`the name of entry ${i} of ${where}`);
        walk(x, named ? `${where}[${JSON.stringify(k)}]` : `entry ${i} of ${where}`);
      }
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${where}[${i}]`));
    } else if (v !== null && typeof v === 'object') {
      let i = 0;
      for (const [k, x] of Object.entries(v)) {
        i++;
        const named = !hit(k);
        if (!named) found.push(`the name of key ${i} of ${where}`);
        walk(x, named ? `${where}.${k}` : `key ${i} of ${where}`);
      }
    }
  };
  walk(value, 'result');
  return [...new Set(found)];
}

/** The message of an attempt withheld at the door: where, never what. */
export function leakMessage(where: string[]): string {
  const shown = where.slice(0, 5).join('; ') + (where.length > 5 ? `; and ${where.length - 5} more` : '');
  return (
    `the worker's result carried a secret of the job in a form redaction does not mask (${shown}); ` +
    'nothing of this attempt was uploaded: no changes, outputs or transcript'
  );
}

/**
 * Passes `value` through the door: sealed as it is when it carries no secret, else replaced
 * by `withheld(message)` (which must be built from the message alone) — checked again, so
 * a withheld result cannot carry one either.
 */
export function seal<T>(value: T, secrets: string[], withheld: (message: string) => T): Sealed<T> {
  const where = leaksIn(value, secrets);
  if (!where.length) return value as Sealed<T>;
  const replacement = withheld(leakMessage(where));
  if (leaksIn(replacement, secrets).length) throw new Error("baton's withheld result still carried a secret of the job: nothing was uploaded");
  return replacement as Sealed<T>;
}
