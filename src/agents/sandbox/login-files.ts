// The login files an agent's CLI signs in with (`claude login` keeps ~/.claude/.credentials.json,
// `codex login` ~/.codex/auth.json: the backend's `loginFiles`), handed over from the worker's
// home to the agent's fresh one when the attempt is fenced — those files and nothing else of
// the worker's home, which stays closed to the agent's user.
//
// Each file is written by the agent's user itself (umask 077: mode 0600, folders 0700, owned
// by the agent): whatever the agent left in its home in an earlier attempt (a symbolic link
// where the file goes) leads the write only where the agent could write anyway. The paths are
// baton's own constants (src/agents/backends/*.ts), never input; one that could leave the home
// is a programming error.
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** The shell run as the agent: `$1` is the path under its HOME, the content comes on stdin. */
export const WRITE_LOGIN_FILE = 'umask 077 && mkdir -p -- "$(dirname -- "$HOME/$1")" && rm -f -- "$HOME/$1" && cat > "$HOME/$1"';

/** Throws when `path` is not a plain relative path inside HOME. */
export function checkLoginFilePath(path: string): void {
  if (!path || isAbsolute(path) || path.split('/').some((part) => part === '..' || part === '') || path.includes('\0')) {
    throw new Error(`a backend's login file must be a path inside HOME without \`..\`; got ${JSON.stringify(path)}`);
  }
}

/**
 * Copies each of `files` that exists under `workerHome` into the agent's home through
 * `writeAsAgent` (the relative path and the content; the error text or null). Returns the
 * transcript lines: which files were handed over (names only, never contents), and each that
 * could not be — the attempt goes on without it, and a CLI without a login says so.
 */
export function handOverLoginFiles(files: readonly string[], workerHome: string | undefined, writeAsAgent: (path: string, content: Buffer) => string | null): string[] {
  files.forEach(checkLoginFilePath);
  if (!files.length || !workerHome) return [];
  const notes: string[] = [];
  const handed: string[] = [];
  for (const file of files) {
    let content: Buffer;
    try {
      content = readFileSync(join(workerHome, file));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue; // not signed in this way: nothing to hand over
      notes.push(`baton: the login file ~/${file} could not be read (${code ?? (err as Error).message}); the agent starts without it`);
      continue;
    }
    const error = writeAsAgent(file, content);
    if (error) notes.push(`baton: the login file ~/${file} could not be written to the agent's home (${error}); the agent starts without it`);
    else handed.push(`~/${file}`);
  }
  if (handed.length) notes.unshift(`baton: handed the agent's home its login file${handed.length > 1 ? 's' : ''} (nothing else of the worker's home): ${handed.join(', ')}`);
  return notes;
}
