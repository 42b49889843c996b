// The hidden block at the end of the status comment that carries the machine state:
//   <!-- baton:state v1 sha256=<hex> [gen=<n> ]z1:<deflated base64 JSON> -->
// The hash covers the payload (and the generation), so an edited block is noticed. The
// generation is the App's lease count for the run (hosts/github/lease.ts): which claim wrote
// this state; records written before leases have none (0). Anyone who can edit the
// comment can also recompute a plain hash, which is why state is further trusted only
// from a comment authored by baton itself; given a secret, the hash becomes an HMAC.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { decodeCompact, encodeCompact, type RunState } from '../engine/index.ts';

const BLOCK = /^<!-- baton:state v(\d+) (sha256|hmac-sha256)=([0-9a-f]{64}) (?:gen=(\d{1,15}) )?(\S+) -->$/;
const OPENER = '<!-- baton:state ';

export function digest(payload: string, secret?: string): { algo: 'sha256' | 'hmac-sha256'; hex: string } {
  if (secret) return { algo: 'hmac-sha256', hex: createHmac('sha256', secret).update(payload).digest('hex') };
  return { algo: 'sha256', hex: createHash('sha256').update(payload).digest('hex') };
}

/** What the hash covers: the generation, when there is one, then the payload. */
function signed(payload: string, gen: number): string {
  return gen > 0 ? `gen=${gen} ${payload}` : payload;
}

export function writeStateBlock(state: RunState, secret?: string, gen = 0): string {
  if (!Number.isSafeInteger(gen) || gen < 0) throw new Error(`a state generation is a whole number ≥ 0, got ${gen}`);
  const payload = encodeCompact(state);
  const { algo, hex } = digest(signed(payload, gen), secret);
  return `<!-- baton:state v1 ${algo}=${hex} ${signed(payload, gen)} -->`;
}

export type StateBlockResult = { ok: true; state: RunState; gen: number; unverified?: true } | { ok: false; problem: string };

export function hasStateBlock(body: string): boolean {
  return body.includes(OPENER);
}

/**
 * The state is read from one place only: the body's last line, and the body holds no other
 * state block. Text above it cannot supply a block of its own (baton renders it inert, and a
 * second block makes the whole comment untrusted rather than choosing one).
 */
/**
 * `unsignedRead`: a reader that only shows runs and does not hold the key (the MCP server on a
 * developer's machine) may decode a block signed with a key it lacks; it says the state is
 * unverified. Nothing that acts on a run reads this way.
 */
export function readStateBlock(body: string, secret?: string, opts: { unsignedRead?: boolean } = {}): StateBlockResult {
  const lines = body.trimEnd().split(/\r?\n/);
  const count = body.split(OPENER).length - 1;
  if (count === 0) return { ok: false, problem: 'no baton state block' };
  if (count > 1) return { ok: false, problem: `${count} state blocks in one comment (a record has exactly one, on its last line)` };
  const m = BLOCK.exec(lines.at(-1)!.trim());
  if (!m) return { ok: false, problem: 'the state block is not the last line of the comment' };
  const [, version, algo, hex, genText, payload] = m as unknown as [string, string, string, string, string | undefined, string];
  const gen = genText === undefined ? 0 : Number(genText);
  if (version !== '1') return { ok: false, problem: `state block version ${version} is not supported` };
  const unverified = algo === 'hmac-sha256' && !secret && opts.unsignedRead === true;
  if (!unverified) {
    const expected = digest(signed(payload, gen), secret);
    if (algo !== expected.algo) return { ok: false, problem: `state block is signed with ${algo}, expected ${expected.algo}` };
    if (!timingSafeEqual(Buffer.from(hex, 'hex'), Buffer.from(expected.hex, 'hex'))) {
      return { ok: false, problem: 'state block hash does not match its content (the comment was edited)' };
    }
  }
  try {
    return { ok: true, state: decodeCompact(payload), gen, ...(unverified ? { unverified: true as const } : {}) };
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
}
