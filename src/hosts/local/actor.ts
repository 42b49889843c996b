// Who acts in a local run: the OS user (there is no GitHub login; the local host treats
// them as the repository's owner). Some containers have no passwd entry: 'local' then.
import { userInfo } from 'node:os';

export function localActor(): string {
  try {
    return userInfo().username || 'local';
  } catch {
    return 'local';
  }
}
