// What `npm run bench` prints and the exit status it ends with, from measured figures: a
// table or one JSON object, and status 1 when a figure misses its target (unless --no-fail).
import { meetsTarget, type Figure } from './figures/figure.ts';

export interface Measured {
  figure: Figure;
  value: number;
}

export interface Report {
  stdout: string;
  stderr: string;
  exitCode: 0 | 1;
}

export function report(results: Measured[], opts: { json: boolean; noFail: boolean }): Report {
  const stdout = opts.json ? jsonReport(results) : table(results);
  const missed = results.filter((r) => meetsTarget(r.figure, r.value) === false).map((r) => r.figure.name);
  if (!missed.length) return { stdout, stderr: '', exitCode: 0 };
  const stderr = `${missed.length} figure${missed.length === 1 ? '' : 's'} missed ${missed.length === 1 ? 'its target' : 'their targets'}: ${missed.join(', ')}${opts.noFail ? ' (--no-fail: reported only)' : ''}\n`;
  return { stdout, stderr, exitCode: opts.noFail ? 0 : 1 };
}

function jsonReport(results: Measured[]): string {
  const entries = results.map(({ figure, value }) => [
    figure.name,
    { value, unit: figure.unit, target: figure.target ? `${figure.target.op} ${figure.target.value}` : null, met: meetsTarget(figure, value) },
  ]);
  return JSON.stringify(Object.fromEntries(entries)) + '\n';
}

function table(results: Measured[]): string {
  const rows = results.map(({ figure, value }) => {
    const ok = meetsTarget(figure, value);
    return [
      figure.name,
      `${value.toLocaleString('en-US')} ${figure.unit}`,
      figure.target ? `${figure.target.op} ${figure.target.value.toLocaleString('en-US')}` : '',
      ok === null ? '' : ok ? 'ok' : 'MISSED',
      figure.description,
    ];
  });
  const head = ['figure', 'value', 'target', '', 'what'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}
