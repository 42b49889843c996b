/**
 * Puts each image's facts from GitHub beside the emulator's runner's: a judged fact matches or
 * differs, a shown one is printed only. The emulator's runner runs the same probe (its job
 * sandbox, tests/emulator/actions/sandbox.ts, is what it models of GitHub's runner), so its
 * answer is what the emulator's tests actually see, not a description of it.
 */
import { FACTS, judged, PROBE_IMAGES, type Fact } from './facts.ts';
import type { ProbeResult } from './run-probe.ts';

export type FactVerdict = 'match' | 'differ' | 'shown' | 'missing';

export interface FactRow {
  fact: Fact;
  judged: boolean;
  /** Per image: the emulator's value. */
  emulator: Record<string, string>;
  /** Per image: GitHub's value; null in emulator-only runs. */
  github: Record<string, string> | null;
  /** Per image, GitHub against the emulator; empty in emulator-only runs. */
  verdicts: Record<string, FactVerdict>;
}

function valueOf(result: ProbeResult, image: string, fact: Fact): string | undefined {
  const facts = result[image];
  return facts === undefined || 'missing' in facts ? undefined : (facts as Record<Fact, string>)[fact];
}

export function compareProbes(github: ProbeResult | null, emulator: ProbeResult): FactRow[] {
  return FACTS.map((fact) => {
    const row: FactRow = { fact, judged: judged(fact), emulator: {}, github: github === null ? null : {}, verdicts: {} };
    for (const image of PROBE_IMAGES) {
      const mine = valueOf(emulator, image, fact);
      row.emulator[image] = mine ?? `missing: ${(emulator[image] as { missing?: string } | undefined)?.missing ?? 'not run'}`;
      if (github === null) continue;
      const theirs = valueOf(github, image, fact);
      row.github![image] = theirs ?? `missing: ${(github[image] as { missing?: string } | undefined)?.missing ?? 'not run'}`;
      row.verdicts[image] = theirs === undefined || mine === undefined ? 'missing' : !row.judged ? 'shown' : theirs === mine ? 'match' : 'differ';
    }
    return row;
  });
}

const escape = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The emulator's value: one when every image gives the same, else each image's. */
function emulatorCell(row: FactRow): string {
  const values = PROBE_IMAGES.map((i) => row.emulator[i]!);
  return new Set(values).size === 1 ? values[0]! : PROBE_IMAGES.map((i) => `${i}: ${row.emulator[i]}`).join('; ');
}

function githubCell(row: FactRow, image: string): string {
  const verdict = row.verdicts[image]!;
  const value = row.github![image]!;
  return verdict === 'match' ? 'match' : `${verdict}: ${value}`;
}

/** A Markdown table, and a line naming every judged fact that differs. */
export function probeTable(rows: readonly FactRow[]): string {
  const withGitHub = rows.some((r) => r.github !== null);
  const head = withGitHub ? ['fact', 'emulator', ...PROBE_IMAGES] : ['fact', 'judged', 'emulator'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const cells = withGitHub ? [row.fact, emulatorCell(row), ...PROBE_IMAGES.map((i) => githubCell(row, i))] : [row.fact, row.judged ? 'yes' : 'shown', emulatorCell(row)];
    lines.push(`| ${cells.map(escape).join(' | ')} |`);
  }
  const differing = rows.flatMap((r) => PROBE_IMAGES.filter((i) => r.verdicts[i] === 'differ' || r.verdicts[i] === 'missing').map((i) => `${r.fact} on ${i}`));
  const summary = !withGitHub
    ? "Emulator only: the emulator's runner's answers; no claim about GitHub's runners."
    : differing.length === 0
      ? 'Every judged fact matches on every image.'
      : `Differ or missing: ${differing.join(', ')}.`;
  return `\nThe runner probe (U5; docs/conformance.md, "The runner probe"):\n\n${lines.join('\n')}\n\n${summary}\n`;
}

/** One line for the unknowns list: what the emulator's runner answered, or how its run went. */
export function probeSummary(rows: readonly FactRow[]): string {
  const missing = new Set(rows.flatMap((r) => Object.values(r.emulator).filter((v) => v.startsWith('missing: '))));
  if (missing.size > 0) return `the emulator's runner gave no facts (${[...missing].join('; ')})`;
  const pick = (fact: string) => `${fact} ${rows.find((r) => r.fact === fact)!.emulator[PROBE_IMAGES[0]]}`;
  const differ = rows.flatMap((r) => PROBE_IMAGES.filter((i) => r.verdicts[i] === 'differ' || r.verdicts[i] === 'missing').map((i) => `${r.fact} on ${i}`));
  const against = rows.some((r) => r.github !== null) ? `; GitHub: ${differ.length === 0 ? 'every judged fact matches' : `differs in ${differ.join(', ')}`}` : '';
  return `the emulator's runner answered ${rows.length} facts on ${PROBE_IMAGES.length} images (${['user', 'sudoers.runner.rule', 'program.nft', 'apparmor.restrict_unprivileged_userns'].map(pick).join(', ')}…; table below)${against}`;
}
