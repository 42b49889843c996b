// Where `extends:` finds the workflow library when the Action runs. The bundle sits in
// <action>/dist/, the library in <action>/workflows-library/; from the sources the
// manifest loader's own reader already looks in the right place.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBundledLibrary, type LibraryReader } from '../manifest/load.ts';

const NEXT_TO_BUNDLE = fileURLToPath(new URL('../workflows-library/', import.meta.url));

export const actionLibrary: LibraryReader = (name) => {
  if (/^[a-z0-9][a-z0-9-]*(\.ya?ml)?$/.test(name)) {
    for (const candidate of /\.ya?ml$/.test(name) ? [name] : [`${name}.yml`, `${name}.yaml`]) {
      const path = join(NEXT_TO_BUNDLE, candidate);
      if (existsSync(path)) return { file: `workflows-library/${candidate}`, text: readFileSync(path, 'utf8') };
    }
  }
  return readBundledLibrary(name);
};
