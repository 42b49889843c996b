// The files a step writes to talk to the runner: GITHUB_OUTPUT, GITHUB_ENV and
// GITHUB_STATE hold `name=value` lines or the multi-line form
//   name<<DELIM
//   line 1
//   line 2
//   DELIM
// exactly as the Actions runner reads them (the first of `=` and `<<` decides the form).

export class CommandFileError extends Error {}

export function parseCommandFile(text: string, fileLabel: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const eq = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (eq !== -1 && (heredoc === -1 || eq < heredoc)) {
      const name = line.slice(0, eq);
      if (name === '') throw new CommandFileError(`${fileLabel}: line ${i + 1} has an empty name`);
      out[name] = line.slice(eq + 1);
      continue;
    }
    if (heredoc === -1) throw new CommandFileError(`${fileLabel}: line ${i + 1} is neither name=value nor name<<DELIMITER: ${line}`);
    const name = line.slice(0, heredoc);
    const delimiter = line.slice(heredoc + 2);
    if (name === '' || delimiter === '') throw new CommandFileError(`${fileLabel}: line ${i + 1} needs a name and a delimiter`);
    const body: string[] = [];
    let closed = false;
    for (i++; i < lines.length; i++) {
      if (lines[i] === delimiter) {
        closed = true;
        break;
      }
      body.push(lines[i]!);
    }
    if (!closed) throw new CommandFileError(`${fileLabel}: the delimiter '${delimiter}' for '${name}' is never found`);
    out[name] = body.join('\n');
  }
  return out;
}

/** GITHUB_PATH: one directory per line, prepended to PATH for the following steps. */
export function parsePathFile(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l.trim() !== '');
}
