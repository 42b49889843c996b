/** The table a maintainer reads, and the JSON a machine reads, from the same rows. */
import type { Row } from './compare.ts';
import type { Outcome } from './types.ts';

export interface Report {
  /** What the run is evidence of. */
  claimAboutGitHub: boolean;
  note: string;
  repo: string | null;
  apiUrl: string | null;
  madeAt: string;
  rows: Row[];
}

export function report(rows: Row[], github: { repo: string; apiUrl: string } | null, now = new Date()): Report {
  return {
    claimAboutGitHub: github !== null,
    note:
      github === null
        ? 'Emulator only: no claim about GitHub is made from this run (every "github" is null). The verdict compares the emulator with FIDELITY.md and readings.ts.'
        : `GitHub's answers from ${github.repo} against the emulator's under its default readings.`,
    repo: github?.repo ?? null,
    apiUrl: github?.apiUrl ?? null,
    madeAt: now.toISOString(),
    rows,
  };
}

export function cell(outcome: Outcome | null): string {
  if (outcome === null) return '—';
  if ('skipped' in outcome) return `skipped: ${outcome.skipped}`;
  if ('failed' in outcome) return `FAILED: ${outcome.failed}`;
  const reading = outcome.reading === undefined ? '' : ` [${outcome.reading}]`;
  return `${outcome.answer}${reading}${outcome.detail === undefined ? '' : ` (${outcome.detail})`}`;
}

function assumptionCell(row: Row): string {
  return 'reading' in row.assumption ? `reading ${row.assumption.reading} (default ${row.claim})` : `FIDELITY.md: ${row.assumption.row}`;
}

function emulatorCell(row: Row): string {
  if (row.readings === undefined) return cell(row.emulator);
  return row.readings.map((r) => `${r.value} → ${cell(r.outcome)}`).join(' ; ');
}

/** A Markdown table: readable in a terminal, pastable into an issue. */
export function table(r: Report): string {
  const escape = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `| scenario | assumption | github | emulator | verdict |`,
    `|---|---|---|---|---|`,
    ...r.rows.map((row) => `| ${[row.scenario, assumptionCell(row), r.claimAboutGitHub ? cell(row.github) : 'no claim (emulator only)', emulatorCell(row), row.verdict].map(escape).join(' | ')} |`),
  ];
  return `${r.note}\n\n${lines.join('\n')}\n`;
}
