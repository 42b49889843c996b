// `npm run bench` prints a table; `npm run bench -- --json` prints one JSON object
// { figure: { value, unit, target, met } }. Names given as arguments select figures
// (`npm run bench -- decide`). Either way the exit status is 1 when a figure misses its
// target, so CI and release checks can hold baton to them; `--no-fail` only reports.
import { FIGURES } from './figures/index.ts';
import { report, type Measured } from './report.ts';

const args = process.argv.slice(2);
const filters = args.filter((a) => !a.startsWith('--'));
const selected = FIGURES.filter((f) => filters.length === 0 || filters.some((x) => f.name.includes(x)));

function round(value: number): number {
  return Math.abs(value) >= 100 ? Math.round(value) : Number(value.toPrecision(3));
}

const results: Measured[] = [];
for (const figure of selected) results.push({ figure, value: round(await figure.measure()) });

const out = report(results, { json: args.includes('--json'), noFail: args.includes('--no-fail') });
process.stdout.write(out.stdout);
process.stderr.write(out.stderr);
process.exitCode = out.exitCode;
