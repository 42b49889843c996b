// Artifact archives are real zip files, as GitHub serves them.
import { createHash } from 'node:crypto';
import { unzipSync, zipSync, type Zippable } from 'fflate';

export function zipFiles(files: Map<string, Uint8Array>): Uint8Array {
  const tree: Zippable = {};
  // fflate takes a flat map of `a/b.txt` → bytes; a fixed mtime keeps archives reproducible
  for (const [path, data] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    tree[path] = [data, { mtime: new Date('2020-01-01T00:00:00Z') }];
  }
  return zipSync(tree, { level: 6 });
}

export function unzipFiles(zip: Uint8Array): Map<string, Uint8Array> {
  const out = new Map<string, Uint8Array>();
  for (const [path, data] of Object.entries(unzipSync(zip))) {
    if (!path.endsWith('/')) out.set(path, data);
  }
  return out;
}

export function sha256(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
