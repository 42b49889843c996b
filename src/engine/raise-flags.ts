// The words of a raise, as people type them after `/baton retry <step>`, `baton resume` or in
// MCP's `baton_resume`: `--budget +$2`, `--minutes +20`, `--turns +20`. Comment text is anyone's:
// the grammar is strict (each flag once, a `+` then digits, dollars with at most two decimals),
// and anything else is refused with a message that names the word.
import type { LimitRaise } from './types.ts';

const FLAGS = { '--budget': 'costUsd', '--minutes': 'minutes', '--turns': 'turns' } as const;
type Flag = keyof typeof FLAGS;

/** An amount people may type: at most six digits before the point (a cap in the manifest bounds it anyway). */
const DOLLARS = /^\+\$?(\d{1,6}(?:\.\d{1,2})?)$/;
const WHOLE = /^\+(\d{1,6})$/;

const EXAMPLE: Record<Flag, string> = { '--budget': '+$2', '--minutes': '+20', '--turns': '+20' };

/** Shows a word someone typed, cut and without backticks, inside a code span. */
const shown = (word: string): string => '`' + [...word.replace(/`/g, "'")].slice(0, 40).join('') + (word.length > 40 ? '…' : '') + '`';

/** The raise the words ask for, or why they are not one. No words: an empty raise. */
export function parseRaiseFlags(words: readonly string[]): LimitRaise | { error: string } {
  const raise: LimitRaise = {};
  for (let i = 0; i < words.length; i += 2) {
    const flag = words[i]!;
    if (!(flag in FLAGS)) return { error: `${shown(flag)} is not an option of a retry; it takes \`--budget +$N\`, \`--minutes +N\` and \`--turns +N\`` };
    const f = flag as Flag;
    const value = words[i + 1];
    if (value === undefined) return { error: `\`${f}\` needs an amount, like \`${f} ${EXAMPLE[f]}\`` };
    const m = (f === '--budget' ? DOLLARS : WHOLE).exec(value);
    const amount = m ? Number(m[1]) : NaN;
    if (!m || !(amount > 0)) return { error: `\`${f}\` takes an amount to add, like \`${f} ${EXAMPLE[f]}\`; ${shown(value)} is not one` };
    const key = FLAGS[f];
    if (raise[key] !== undefined) return { error: `\`${f}\` is given twice` };
    raise[key] = amount;
  }
  return raise;
}

/** The raise as flags, in the order people read them (`--budget +$2 --turns +20`). */
export function raiseFlagWords(raise: LimitRaise): string[] {
  const words: string[] = [];
  if (raise.costUsd !== undefined) words.push('--budget', `+$${raise.costUsd}`);
  if (raise.minutes !== undefined) words.push('--minutes', `+${raise.minutes}`);
  if (raise.turns !== undefined) words.push('--turns', `+${raise.turns}`);
  return words;
}
