// How much of a worker's result artifact baton takes. The artifact is made next to an agent
// that read untrusted text, and the App reads it in the one process that serves every
// installation: a zip that inflates 1000:1 must not be able to take that process's memory.
// So the download is refused by its size before it starts, and the zip is inflated as a
// stream, a few KiB of it at a time, counting every byte that comes out: the first byte past
// a cap stops it. A breach is a refused attempt with a message, never a crash.
import { Unzip, UnzipInflate } from 'fflate';

export interface ResultCaps {
  /** The artifact as GitHub stores it (the zip): checked against `size_in_bytes` before the download. */
  artifactBytes: number;
  /** One file once inflated. */
  fileBytes: number;
  /** All files together once inflated (result.json and the transcript included). */
  totalBytes: number;
  /** Entries in the zip (each costs memory even when empty). */
  entries: number;
}

const MiB = 1024 * 1024;

export const RESULT_CAPS: ResultCaps = { artifactBytes: 32 * MiB, fileBytes: 32 * MiB, totalBytes: 64 * MiB, entries: 20_000 };

/** Compressed bytes handed to the inflater at a time: what one step can inflate to is at most ~1032 times this. */
const CHUNK = 4 * 1024;

export const mib = (n: number): string => `${Math.round((n / MiB) * 10) / 10} MiB`;

/** A cap was reached: `message` says which, and where. */
export class CapBreach extends Error {}

/** Says why an artifact of `size` bytes (GitHub's `size_in_bytes`) is not downloaded, if so. */
export function artifactTooLarge(size: number | undefined, caps: ResultCaps = RESULT_CAPS): string | undefined {
  if (size === undefined || size <= caps.artifactBytes) return undefined;
  return `the worker's result artifact is ${mib(size)}, over the ${mib(caps.artifactBytes)} baton downloads; it was not downloaded`;
}

/**
 * Every entry of `zip`, inflated within `caps`; a CapBreach the moment one is passed, an
 * Error for a zip that cannot be read. `counter`, when given, sees every inflated byte.
 */
export function inflateWithin(zip: Uint8Array, caps: ResultCaps = RESULT_CAPS, counter?: { inflated: number }): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>();
  let total = 0;
  let count = 0;
  const unzip = new Unzip((file) => {
    if (++count > caps.entries) throw new CapBreach(`the worker's result artifact holds more than ${caps.entries} entries`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (err, chunk, final) => {
      if (err) throw err;
      size += chunk.length;
      total += chunk.length;
      if (counter) counter.inflated += chunk.length;
      if (size > caps.fileBytes) throw new CapBreach(`${JSON.stringify(file.name)} in the worker's result artifact inflates to more than ${mib(caps.fileBytes)}, the most baton takes for one file`);
      if (total > caps.totalBytes) throw new CapBreach(`the worker's result artifact inflates to more than ${mib(caps.totalBytes)}, the most baton takes for one result`);
      chunks.push(chunk);
      if (final) entries.set(file.name, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  if (zip.length === 0) throw new Error('the archive is empty');
  for (let at = 0; at < zip.length; at += CHUNK) unzip.push(zip.subarray(at, at + CHUNK), at + CHUNK >= zip.length);
  return entries;
}
