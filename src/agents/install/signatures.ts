// `npm audit signatures` over an installed CLI: npm checks each package's integrity hash
// against the registry's signature of it (and provenance attestations where there are any).
// The lockfile's hashes already decide what is installed; the signatures say those hashes
// are the ones the registry published. The result always goes into the job log.
import { execFile } from 'node:child_process';

export type SignatureVerdict =
  /** Every package audited has a valid registry signature. */
  | { kind: 'verified'; summary: string }
  /** npm could not check (the registry has no signing keys, sigstore's key store is unreachable): said in the log, not fatal. */
  | { kind: 'unchecked'; reason: string }
  /** A signature is invalid, or missing where the registry signs: the install is refused. */
  | { kind: 'refused'; reason: string };

const lines = (s: string): string[] => s.split('\n').map((l) => l.replace(/^npm (error|ERR!|warn)\s*/, '').trim()).filter(Boolean);

/** Reads what `npm audit signatures` printed and how it exited. */
export function signatureVerdict(code: number, stdout: string, stderr: string): SignatureVerdict {
  const out = lines(stdout);
  if (code === 0) return { kind: 'verified', summary: out.join('; ') || 'no package to audit' };
  // npm prints these, then the packages, and exits 1 (lib/utils/verify-signatures.js).
  if (out.some((l) => /\b(invalid|missing)\b.*(registry signature|attestation)/.test(l))) return { kind: 'refused', reason: out.join('; ') };
  const err = lines(stderr).filter((l) => !/A complete log of this run|^code |^errno |^syscall |proxy|network settings|connectivity|^network$/.test(l));
  return { kind: 'unchecked', reason: (err.find((l) => /found no|request to|ENOTFOUND|ETIMEDOUT|ECONNREFUSED|EAI_AGAIN|keys/i.test(l)) ?? err[0] ?? `npm exited ${code}`).replace(/^network\s+/, '') };
}

export async function auditSignatures(dir: string): Promise<SignatureVerdict> {
  const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('npm', ['audit', 'signatures', '--no-update-notifier'], { cwd: dir, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
  return signatureVerdict(code, stdout, stderr);
}
