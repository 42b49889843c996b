// What `baton init` wrote, kept in the repository so that `baton update` can merge: the
// options it ran with and each file's text as written, the base of a three-way merge
// between the user's edits and what this version of baton writes.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { InitOptions } from './plan.ts';

export const INIT_BASE_FILE = '.agents/baton-init.json';

export interface InitBase {
  version: 1;
  /** The baton release that wrote the files. */
  baton: string;
  mode: InitOptions['mode'];
  workflows: string[];
  actionRef: string;
  /** The Action reference was given (--action-ref), not baton's default: update keeps it. */
  actionRefGiven: boolean;
  appToken: boolean;
  /** Path → the text init (or the last update) wrote there. */
  files: Record<string, string>;
}

export class InitBaseError extends Error {}

export function writeInitBase(root: string, base: InitBase): void {
  const target = join(root, INIT_BASE_FILE);
  mkdirSync(dirname(target), { recursive: true });
  const note = 'Written by baton init and baton update: what they wrote, the base that lets `baton update` keep your edits. Commit it; do not edit it.';
  writeFileSync(target, JSON.stringify({ '//': note, ...base }, null, 2) + '\n');
}

export function readInitBase(root: string): InitBase {
  const target = join(root, INIT_BASE_FILE);
  if (!existsSync(target)) throw new InitBaseError(`${INIT_BASE_FILE} is missing: it records what \`baton init\` wrote, the base \`baton update\` merges from. Run \`baton init --force\` (your edits to its files are then replaced) or restore the file from git`);
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(target, 'utf8'));
  } catch (err) {
    throw new InitBaseError(`${INIT_BASE_FILE} is not valid JSON (${(err as Error).message}); restore it from git`);
  }
  const b = data as Partial<InitBase>;
  const strings = (x: unknown): x is string[] => Array.isArray(x) && x.every((s) => typeof s === 'string');
  const texts = (x: unknown): x is Record<string, string> => typeof x === 'object' && x !== null && Object.values(x).every((v) => typeof v === 'string');
  if (b.version !== 1 || (b.mode !== 'app' && b.mode !== 'actions') || !strings(b.workflows) || typeof b.actionRef !== 'string' || typeof b.actionRefGiven !== 'boolean' || typeof b.appToken !== 'boolean' || !texts(b.files)) {
    throw new InitBaseError(`${INIT_BASE_FILE} is not one baton wrote (version 1, mode, workflows, actionRef, actionRefGiven, appToken, files); restore it from git`);
  }
  return { version: 1, baton: typeof b.baton === 'string' ? b.baton : 'unknown', mode: b.mode, workflows: b.workflows, actionRef: b.actionRef, actionRefGiven: b.actionRefGiven, appToken: b.appToken, files: b.files };
}
