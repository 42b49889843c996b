// The `actions` map entry for baton's Action: this checkout's action.yml at the refs `baton init`
// writes (the major tag, and the release pin when this copy carries one, src/release-pin.ts).
// Keyed by `repo@ref`, never by the bare repository: a `uses:` of baton at any other ref is
// refused, as GitHub refuses a ref the repository does not have.
import { batonAction } from '../../../src/release-pin.ts';
import { ACTION_REF } from '../../../src/names.ts';

export function batonActionMap(dir: string): Record<string, string> {
  return { [ACTION_REF]: dir, [batonAction().ref]: dir };
}
