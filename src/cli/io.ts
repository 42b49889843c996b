// Where a CLI command writes; tests pass their own to read what a person would see.
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
}

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
  cwd: process.cwd(),
};

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 3 } as const;

export class UsageError extends Error {}
