/**
 * The probe's workflow: one job per image, each writing runner-probe.sh (embedded, so the job
 * needs no checkout and no action but the upload) and uploading what it printed as the
 * artifact `runner-probe-<image>`. It runs `on: push` of its own scratch branch only, so it is
 * never on the default branch and starts nothing anywhere else.
 */
import { readFileSync } from 'node:fs';
import { PREFIX } from '../scenarios/support.ts';
import { PROBE_IMAGES } from './facts.ts';

export const PROBE_SCRIPT = readFileSync(new URL('./runner-probe.sh', import.meta.url), 'utf8');

const END = 'BATON_RUNNER_PROBE_END';

export function artifactName(image: string): string {
  return `runner-probe-${image}`;
}

/** `ubuntu-24.04-arm` → `ubuntu-24-04-arm`: a job id. */
function jobId(image: string): string {
  return image.replace(/[^\w-]/g, '-');
}

export function probeWorkflow(branch: string, script = PROBE_SCRIPT): string {
  // The script goes into a `run:` block verbatim: an expression there would be evaluated by
  // the runner, and the heredoc's end marker would cut it short.
  if (script.includes('${{') || script.includes(END)) throw new Error(`runner-probe.sh must not contain "\${{" or ${END}`);
  const body = script.split('\n').map((l) => (l === '' ? '' : `          ${l}`)).join('\n');
  const jobs = PROBE_IMAGES.map(
    (image) => `  ${jobId(image)}:
    runs-on: ${image}
    steps:
      - name: probe
        shell: bash
        run: |
          cat > runner-probe.sh <<'${END}'
${body}
          ${END}
          bash runner-probe.sh > runner-probe.json
          cat runner-probe.json
      - uses: actions/upload-artifact@v4
        with:
          name: ${artifactName(image)}
          path: runner-probe.json
`,
  );
  return `name: ${PREFIX} runner probe
on:
  push:
    branches: ['${branch}']
permissions:
  contents: read
jobs:
${jobs.join('')}`;
}
