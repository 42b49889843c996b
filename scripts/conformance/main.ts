/**
 * `npm run conformance -- --repo OWNER/REPO [--api-url URL] [--out FILE] [--only NAME]`: asks a
 * sandbox repository on GitHub each question the emulator answers from an assumption, and puts
 * GitHub's answer beside the emulator's. `--emulator` (no --repo) asks only the emulator, under
 * every reading value, and makes no claim about GitHub. `--runner-probe` runs the runner probe
 * (U5) on GitHub's hosted runners and on the emulator's, instead of the scenarios. See
 * docs/conformance.md.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { compare } from './compare.ts';
import { probeSummary, probeTable } from './probe/compare-facts.ts';
import { settleProbe } from './probe/settle.ts';
import { report, table } from './report.ts';
import { SCENARIOS } from './scenarios/index.ts';
import { githubTarget } from './targets/github.ts';
import { unknownsList } from './unknowns.ts';

const USAGE = 'usage: npm run conformance -- (--repo OWNER/REPO [--api-url URL] | --emulator) [--out FILE] [--only SCENARIO | --runner-probe]';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      'api-url': { type: 'string', default: 'https://api.github.com' },
      emulator: { type: 'boolean', default: false },
      out: { type: 'string', default: 'conformance.json' },
      only: { type: 'string', multiple: true },
      'runner-probe': { type: 'boolean', default: false },
    },
  });
  if ((values.repo === undefined) === !values.emulator) {
    console.error(`${USAGE}\n(give exactly one of --repo and --emulator)`);
    return 2;
  }
  const scenarios = values.only === undefined ? SCENARIOS : SCENARIOS.filter((s) => values.only!.includes(s.name));
  if (scenarios.length === 0) {
    console.error(`no scenario named ${values.only!.join(', ')}; there are: ${SCENARIOS.map((s) => s.name).join('; ')}`);
    return 2;
  }
  let github = null;
  if (values.repo !== undefined) {
    const m = /^([\w.-]+)\/([\w.-]+)$/.exec(values.repo);
    if (m === null) {
      console.error(`--repo ${JSON.stringify(values.repo)} is not OWNER/REPO`);
      return 2;
    }
    github = await githubTarget({ owner: m[1]!, repo: m[2]!, apiUrl: values['api-url'].replace(/\/$/, ''), env: process.env });
  }
  const log = (line: string) => console.error(line);
  if (values['runner-probe']) {
    const probe = await settleProbe(github, log);
    process.stdout.write(probeTable(probe.rows));
    await writeFile(values.out, `${JSON.stringify({ claimAboutGitHub: github !== null, repo: values.repo ?? null, madeAt: new Date().toISOString(), ...probe }, null, 2)}\n`);
    console.error(`wrote ${values.out}`);
    // The emulator's own runner giving no facts is the kit's failure (no root for its sandbox…), as a failed scenario is.
    return Object.values(probe.emulator).some((facts) => 'missing' in facts) ? 1 : 0;
  }
  const rows = await compare(scenarios, github, log);
  const result = report(rows, values.repo === undefined ? null : { repo: values.repo, apiUrl: values['api-url'] });
  process.stdout.write(table(result));
  // The emulator's runner answers the probe in seconds, so an emulator-only run of every
  // scenario shows it too; GitHub's runners cost job minutes, so there it is asked for.
  const probe = github === null && values.only === undefined ? await settleProbe(null, log) : undefined;
  process.stdout.write(unknownsList(rows, github !== null, probe === undefined ? {} : { summary: probeSummary(probe.rows) }));
  if (probe !== undefined) process.stdout.write(probeTable(probe.rows));
  await writeFile(values.out, `${JSON.stringify(probe === undefined ? result : { ...result, runnerProbe: probe }, null, 2)}\n`);
  console.error(`wrote ${values.out}`);
  return rows.some((r) => r.verdict === 'failed') ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
