// Where a CLI command writes; tests pass their own to read what a person would see. Every
// line reaches the terminal through printable(): commands print untrusted text (agent
// failures, step reasons) and no call site has to remember it.
import { printable } from '../printable.ts';

export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  cwd: string;
}

export const processIO: CliIO = {
  out: (text) => process.stdout.write(line(text)),
  err: (text) => process.stderr.write(line(text)),
  cwd: process.cwd(),
};

/** Exit codes shared by every command. */
export const EXIT = { ok: 0, failed: 1, usage: 2, waiting: 3 } as const;

export class UsageError extends Error {}

/**
 * The one form of a command's error line: `baton <command>: <message>`. Messages from lower
 * layers may carry baton's name already (the Action prints them on their own), so a leading
 * `baton:` or `baton <command>:` is not repeated.
 */
export function errorLine(command: string, message: string): string {
  return `baton ${command}: ${message.replace(/^(?:baton(?: [a-z]+)?:\s*)+/, '')}`;
}

function line(text: string): string {
  const safe = printable(text);
  return safe.endsWith('\n') ? safe : safe + '\n';
}
