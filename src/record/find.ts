// Finding a run's status comment among a thread's comments. State is trusted only from a
// comment that carries the record marker, was written by baton's own bot login, and whose
// state block hash matches; anything else that looks like a record is ignored and
// reported, so that a copied or edited comment can never steer a run.
import { runBranch, type RunState } from '../engine/index.ts';
import { RECORD_MARKER } from './render.ts';
import { hasStateBlock, readStateBlock } from './state-block.ts';

export interface ThreadComment {
  id: number;
  body: string;
  /** Login of the author (`baton[bot]`). */
  author: string;
  url?: string;
  /** When it was posted (ms since the epoch), when known. */
  createdAt?: number;
  /** When it was last written (ms since the epoch, GitHub's clock), when known. */
  updatedAt?: number;
}

export interface FoundRecord {
  commentId: number;
  body: string;
  state: RunState;
  /** The lease generation that wrote it (0: written before leases). */
  gen: number;
  url?: string;
  /** GitHub's `updated_at` of its comment (ms), when read from GitHub: no earlier than the write of this generation. */
  updatedAt?: number;
  /** Read without the key that signed it (a display-only reader): not checked. */
  unverified?: true;
}

export interface IgnoredRecord {
  commentId: number;
  author: string;
  problem: string;
}

export interface RecordsOfThread {
  /** Trusted records in comment order (oldest first). */
  records: FoundRecord[];
  ignored: IgnoredRecord[];
}

/** `unsignedRead`: see readStateBlock; for readers that show runs and never act on them. */
export function findRecords(comments: readonly ThreadComment[], botLogin: string, secret?: string, opts: { unsignedRead?: boolean } = {}): RecordsOfThread {
  const records: FoundRecord[] = [];
  const ignored: IgnoredRecord[] = [];
  for (const c of comments) {
    if (!c.body.includes(RECORD_MARKER) && !hasStateBlock(c.body)) continue;
    if (c.author.toLowerCase() !== botLogin.toLowerCase()) {
      ignored.push({ commentId: c.id, author: c.author, problem: `written by @${c.author}, not by ${botLogin}` });
      continue;
    }
    if (c.body.trimStart().split(/\r?\n/, 1)[0]!.trim() !== RECORD_MARKER) {
      ignored.push({ commentId: c.id, author: c.author, problem: 'the record marker is not the first line of the comment' });
      continue;
    }
    const read = readStateBlock(c.body, secret, opts);
    if (!read.ok) {
      ignored.push({ commentId: c.id, author: c.author, problem: read.problem });
      continue;
    }
    const branch = branchProblem(read.state);
    if (branch) {
      ignored.push({ commentId: c.id, author: c.author, problem: branch });
      continue;
    }
    records.push({ commentId: c.id, body: c.body, state: read.state, gen: read.gen, ...(c.url ? { url: c.url } : {}), ...(c.updatedAt !== undefined && Number.isFinite(c.updatedAt) ? { updatedAt: c.updatedAt } : {}), ...(read.unverified ? { unverified: true } : {}) });
  }
  return { records, ignored };
}

/**
 * A run writes and merges into exactly its own branch, `baton/<run id>`: a state naming
 * another (another run's branch, under baton/ or not) would steer this run's merges there.
 * Only a run that never started (idle) has none yet.
 */
function branchProblem(state: RunState): string | undefined {
  if (state.runBranch === runBranch(state.runId)) return undefined;
  if (state.runBranch === '' && state.status === 'idle') return undefined;
  return `its run branch ${JSON.stringify(state.runBranch)} is not ${runBranch(state.runId)}, the branch of run ${state.runId}`;
}
