// Attack: with a `checks` step (CI dispatched by `checks.workflow`, or any CI that runs on the
// run branch), code an agent wrote runs in the repository's own CI with its secrets and
// token, and nobody read it first. GitHub's own coding agent holds workflow runs on its
// pushes until a person approves. Defence: the validator warns at the checks step when no
// `approve` step stands between a writing agent step and it, unless the workflow accepts
// the risk in so many words (`without-approval: true`).
import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/manifest/load.ts';

const head = `agents:
  coder: { uses: claude-code }
steps:
`;
const implement = `  - id: implement
    agent: coder
    prompt: do it
`;
const gate = (needs: string) => `  - id: gate
    needs: [${needs}]
    approve: { message: Read the change }
`;
const ci = (needs: string, extra = '') => `  - id: ci
    needs: [${needs}]
    checks: # <-
      names: [test]
      workflow: ci.yml
${extra}`;

const warningsOf = (yaml: string) => {
  const r = loadWorkflowText('wf.yml', yaml);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.diagnostics.filter((d) => d.severity === 'warning');
};

describe('CI on commits agents wrote', () => {
  it('warns at the checks step when no approve step comes between the agent and CI', () => {
    const yaml = head + implement + ci('implement');
    const warnings = warningsOf(yaml);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ line: yaml.split('\n').findIndex((l) => l.includes('# <-')) + 1 });
    expect(warnings[0]!.message).toBe(
      "step `ci` runs CI on commits agents wrote (implement) with no `approve` step before it: CI runs that code with the repository's secrets and token. " +
        'Add an `approve` step between them (as workflows-library/fix-issue-gated.yml does), or set `without-approval: true` on the checks step to accept the risk',
    );
  });

  it('is quiet when a person approves after the agent wrote and before CI', () => {
    expect(warningsOf(head + implement + gate('implement') + ci('gate'))).toEqual([]);
  });

  it('still warns when the approval comes before the agent writes', () => {
    const yaml = head + gate('') + implement.replace('    agent: coder', '    needs: [gate]\n    agent: coder') + ci('implement');
    expect(warningsOf(yaml).map((w) => w.message)).toEqual([expect.stringContaining('step `ci` runs CI on commits agents wrote (implement)')]);
  });

  it('is quiet when the workflow accepts the risk with without-approval: true', () => {
    expect(warningsOf(head + implement + ci('implement', '      without-approval: true\n'))).toEqual([]);
  });

  it('is quiet for agents that change no files', () => {
    expect(warningsOf(head + implement.replace('prompt: do it', 'prompt: do it\n    writes: false') + ci('implement'))).toEqual([]);
  });
});
