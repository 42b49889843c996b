// The hidden block at the end of the status comment that carries the machine state:
//   <!-- baton:state v1 sha256=<hex> z1:<deflated base64 JSON> -->
// The hash covers the payload, so an edited block is noticed. Anyone who can edit the
// comment can also recompute a plain hash, which is why state is further trusted only
// from a comment authored by baton itself; given a secret, the hash becomes an HMAC.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { decodeCompact, encodeCompact, type RunState } from '../engine/index.ts';

const BLOCK = /^<!-- baton:state v(\d+) (sha256|hmac-sha256)=([0-9a-f]{64}) (\S+) -->$/;
const OPENER = '<!-- baton:state ';

export function digest(payload: string, secret?: string): { algo: 'sha256' | 'hmac-sha256'; hex: string } {
  if (secret) return { algo: 'hmac-sha256', hex: createHmac('sha256', secret).update(payload).digest('hex') };
  return { algo: 'sha256', hex: createHash('sha256').update(payload).digest('hex') };
}

export function writeStateBlock(state: RunState, secret?: string): string {
  const payload = encodeCompact(state);
  const { algo, hex } = digest(payload, secret);
  return `<!-- baton:state v1 ${algo}=${hex} ${payload} -->`;
}

export type StateBlockResult = { ok: true; state: RunState; unverified?: true } | { ok: false; problem: string };

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
  const [, version, algo, hex, payload] = m as unknown as [string, string, string, string, string];
  if (version !== '1') return { ok: false, problem: `state block version ${version} is not supported` };
  const unverified = algo === 'hmac-sha256' && !secret && opts.unsignedRead === true;
  if (!unverified) {
    const expected = digest(payload, secret);
    if (algo !== expected.algo) return { ok: false, problem: `state block is signed with ${algo}, expected ${expected.algo}` };
    if (!timingSafeEqual(Buffer.from(hex, 'hex'), Buffer.from(expected.hex, 'hex'))) {
      return { ok: false, problem: 'state block hash does not match its content (the comment was edited)' };
    }
  }
  try {
    return { ok: true, state: decodeCompact(payload), ...(unverified ? { unverified: true as const } : {}) };
  } catch (err) {
    return { ok: false, problem: (err as Error).message };
  }
}
