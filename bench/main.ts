// `npm run bench` prints a table; `npm run bench -- --json` prints one JSON object
// { figure: value }. Names given as arguments select figures (`npm run bench -- decide`).
import { FIGURES } from './figures/index.ts';
import { meetsTarget, type Figure } from './figures/figure.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const filters = args.filter((a) => !a.startsWith('--'));
const selected = FIGURES.filter((f) => filters.length === 0 || filters.some((x) => f.name.includes(x)));

function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(3));
}

const results: { figure: Figure; value: number }[] = [];
for (const figure of selected) results.push({ figure, value: round(await figure.measure()) });

if (json) {
  process.stdout.write(JSON.stringify(Object.fromEntries(results.map((r) => [r.figure.name, r.value]))) + '\n');
} else {
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
  console.log(line(head));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(r));
  if (results.some((r) => meetsTarget(r.figure, r.value) === false)) process.exitCode = 1;
}
