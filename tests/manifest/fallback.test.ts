// `agents.<name>.fallback`: accepted when it names another agent and the chain ends;
// refused, at the line of the `fallback` key, when it names nothing, itself, or a cycle.
import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/manifest/load.ts';

const steps = `steps:\n  - id: a\n    agent: coder\n    prompt: hi\n`;

function errorsOf(yaml: string): { line: number; message: string }[] {
  const r = loadWorkflowText('wf.yml', yaml);
  return r.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ line: d.line, message: d.message }));
}

describe('agents.<name>.fallback', () => {
  it('is accepted naming another agent, and kept in the loaded workflow', () => {
    const r = loadWorkflowText('wf.yml', `agents:\n  coder: { uses: claude-code, fallback: backup }\n  backup: { uses: codex, fallback: last }\n  last: { uses: gemini }\n${steps}`);
    expect(r.diagnostics).toEqual([]);
    expect(r.loaded?.workflow.agents.coder!.fallback).toBe('backup');
    expect(r.loaded?.workflow.agents.last!.fallback).toBeUndefined();
  });

  it('refuses an agent that is not defined, suggesting the nearest', () => {
    expect(errorsOf(`agents:\n  coder: { uses: claude-code }\n  backup:\n    uses: codex\n    fallback: codr\n${steps}`)).toContainEqual({
      line: 5,
      message: 'agent `backup` falls back to `codr`, which is not defined under `agents`; agents are: coder, backup; did you mean `coder`?',
    });
  });

  it('refuses an agent falling back to itself', () => {
    expect(errorsOf(`agents:\n  coder:\n    uses: claude-code\n    fallback: coder\n${steps}`)).toContainEqual({
      line: 4,
      message: 'agent `coder` names itself as its `fallback`; name another agent under `agents`, one with a different backend',
    });
  });

  it('refuses a cycle once, at its first agent', () => {
    const errors = errorsOf(`agents:\n  coder:\n    uses: claude-code\n    fallback: backup\n  backup:\n    uses: codex\n    fallback: other\n  other: { uses: gemini, fallback: coder }\n${steps}`);
    expect(errors).toEqual([{ line: 4, message: 'agents `coder` → `backup` → `other` → `coder` fall back to each other in a cycle; a chain of fallbacks must end at an agent without `fallback`' }]);
  });

  it('refuses a fallback that is not a name', () => {
    expect(errorsOf(`agents:\n  coder: { uses: claude-code, fallback: [codex] }\n${steps}`).map((e) => e.line)).toContain(2);
  });
});
