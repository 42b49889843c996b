// The worker workflow `baton init` writes installs nothing while the job still has sudo and
// the docker socket, and runs no package manager of its own: the only install is the baton
// Action's mode install-clis (lockfiles, scripts off: tests/actions-only/agent-cli-install.test.ts),
// after the drop. Checked for each backend alone and all together, in both modes.
import { describe, expect, it } from 'vitest';
import { BACKEND_IMPLS } from '../../src/agents/backends/index.ts';
import { workerWorkflow } from '../../src/init/workflows.ts';
import type { Backend } from '../../src/manifest/types.ts';
import { parseWorkflowFile } from '../emulator/actions/workflow-file.ts';

/** A package manager or a download in a shell step: an install baton's lockfiles do not cover. */
const INSTALLS = /(^|[\s;&|(`$])(npm|npx|pnpm|yarn|bun|corepack|pip3?|pipx|uv|uvx|apt(-get)?|dpkg|snap|brew|gem|cargo|go|curl|wget)(\s|$)/m;

const ALL = Object.keys(BACKEND_IMPLS) as Backend[];
const CASES: Backend[][] = [...ALL.map((b) => [b]), ALL];

describe('the worker workflow installs agent CLIs only after the privilege drop', () => {
  for (const mode of ['app', 'actions'] as const) {
    for (const backends of CASES) {
      it(`${mode} mode, ${backends.join(' ')}: nothing before the drop installs, and only the Action's lockfile install does`, () => {
        const text = workerWorkflow({ mode, actionRef: 'baton-dev/baton@v1', backends, appToken: false });
        const steps = parseWorkflowFile('.github/workflows/baton-worker.yml', text).jobs.find((j) => j.id === 'agent')!.steps;
        const drop = steps.findIndex((s) => s.run?.includes('sudo rm /etc/sudoers.d/runner'));
        expect(drop, 'the drop step').toBeGreaterThan(0);
        // Before the drop: the checkout and the baton Action routing or locating itself, nothing else.
        for (const s of steps.slice(0, drop)) {
          if (s.uses) {
            const ok = s.uses.startsWith('actions/checkout@') || (s.uses.startsWith('baton-dev/baton@') && ['route', 'locate'].includes(String(s.with.mode)));
            expect(ok, `before the drop: uses ${s.uses} ${JSON.stringify(s.with)}`).toBe(true);
          }
          expect(s.env.INPUT_MODE, `before the drop: ${s.name ?? s.id}`).not.toBe('install-clis');
        }
        // No step anywhere runs a package manager itself.
        for (const s of steps) expect(s.run ?? '', `step ${s.name ?? s.uses}`).not.toMatch(INSTALLS);
        const installs = steps.filter((s) => s.env.INPUT_MODE === 'install-clis');
        const wanted = backends.filter((b) => BACKEND_IMPLS[b].install).sort();
        if (!wanted.length) {
          expect(installs).toEqual([]);
          return;
        }
        expect(installs).toHaveLength(1);
        const install = installs[0]!;
        expect(steps.indexOf(install)).toBeGreaterThan(drop);
        expect(steps.indexOf(install)).toBeLessThan(steps.findIndex((s) => s.env.INPUT_MODE === 'agent'));
        // The Action's code, from a `run:` step (no runner token), with no secret in reach.
        expect(install.uses).toBeUndefined();
        expect(install.run).toBe('"$BATON_NODE" "$BATON_ENTRY"');
        expect(install.env).toEqual({
          BATON_NODE: '${{ steps.baton.outputs.node }}',
          BATON_ENTRY: '${{ steps.baton.outputs.entry }}',
          INPUT_MODE: 'install-clis',
          INPUT_CLIS: wanted.join(' '),
        });
      });
    }
  }
});
