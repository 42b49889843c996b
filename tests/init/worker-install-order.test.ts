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

describe('the worker workflow fences the agent before the drop and installs its CLIs after', () => {
  for (const mode of ['app', 'actions'] as const) {
    it(`${mode} mode: checkout → fence (root, through sudo) → drop → install → agent, the sudo steps behind one guard`, () => {
      const text = workerWorkflow({ mode, actionRef: 'baton-dev/baton@v1', backends: ALL, appToken: false });
      const steps = parseWorkflowFile('.github/workflows/baton-worker.yml', text).jobs.find((j) => j.id === 'agent')!.steps;
      const at = (found: (s: (typeof steps)[number]) => boolean, what: string): number => {
        const i = steps.findIndex(found);
        expect(i, what).toBeGreaterThanOrEqual(0);
        return i;
      };
      const checkout = at((s) => s.uses?.startsWith('actions/checkout@') ?? false, 'checkout');
      const fence = at((s) => s.env.INPUT_MODE === 'sandbox-setup', 'fence');
      const drop = at((s) => s.run?.includes('sudo rm /etc/sudoers.d/runner') ?? false, 'drop');
      const install = at((s) => s.env.INPUT_MODE === 'install-clis', 'install');
      const agent = at((s) => s.env.INPUT_MODE === 'agent', 'agent');
      // The fence sets the checkout's permissions (so after it), needs sudo (so before the drop),
      // and makes the folder the CLIs are installed into (so before the install).
      expect(checkout).toBeLessThan(fence);
      expect(fence).toBeLessThan(drop);
      expect(drop).toBeLessThan(install);
      expect(install).toBeLessThan(agent);
      expect(steps[fence]!.run).toContain('sudo -E "$BATON_NODE" "$BATON_ENTRY"');
      // Only the first steps' Action code, never a secret, reaches the root step.
      expect(Object.keys(steps[fence]!.env).sort()).toEqual(['BATON_ENTRY', 'BATON_NODE', 'INPUT_MODE']);
      // Every step that uses sudo: on GitHub's hosted Linux only, and as its runner user with its rule and a runnable sudo;
      // a self-hosted runner skips them, and a hosted job under another user is told it has no fence.
      const sudoSteps = steps.filter((s) => /\bsudo\b/.test(s.run ?? ''));
      expect(sudoSteps.length).toBeGreaterThanOrEqual(3);
      for (const s of sudoSteps) {
        expect(s.if, s.name).toBe("runner.environment == 'github-hosted' && runner.os == 'Linux'");
        expect(s.run, s.name).toMatch(/^if \[ -f \/etc\/sudoers\.d\/runner \] && \[ "\$\(id -un\)" = runner \] && \[ -x "\$\(command -v sudo\)" \]/);
      }
      expect(steps[fence]!.run).toMatch(/else\n\s*echo "::warning title=baton sandbox::not set up/);
    });
  }
});
