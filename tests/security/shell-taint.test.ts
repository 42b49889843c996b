// Attack: text an issue or an agent wrote reaches a `run:` command one hop from the issue
// (an agent's output, a fan-out item, a maintainer's answer quoting a reporter) and runs as code. Defence: the validator refuses any
// `${{ }}` in `run:` that reads such text, however it is spelt, and says at the line how to
// pass it through `env:`; the engine hands `env:` values to the process as they are.
import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/manifest/load.ts';

const head = `agents:
  coder: { uses: claude-code }
steps:
  - id: plan
    agent: coder
    prompt: plan it
    outputs: { type: object, properties: { x: { type: string }, tasks: { type: array } } }
  - id: build
    run: make
    outputs: { type: object, properties: { tag: { type: string } } }
  - id: clarify
    ask: { questions: [What scope?] }
  - id: ok
    approve: { message: go? }
`;

const refused: { name: string; run: string; extra?: string; name_?: string }[] = [
  { name: "an agent's output", run: 'echo "${{ steps.plan.outputs.x }}"' },
  { name: "a run step's output", run: 'echo ${{ steps.build.outputs.tag }}' },
  { name: 'a fan-out item', run: 'echo ${{ item }}', extra: '    for-each: ${{ steps.plan.outputs.tasks }}\n' },
  { name: 'an output in upper case', run: 'echo ${{ STEPS.Plan.OUTPUTS.x }}' },
  { name: 'an output through toJSON', run: 'echo ${{ toJSON(steps.plan.outputs) }}' },
  { name: 'an output by index access', run: "echo ${{ steps['plan']['outputs']['x'] }}" },
  { name: 'a step read by a computed name', run: "echo ${{ steps[format('p{0}', 'lan')].outputs.x }}" },
  { name: 'the issue in upper case', run: 'echo ${{ ISSUE.Title }}' },
  { name: 'the whole issue through toJSON', run: 'echo ${{ toJSON(issue) }}' },
  { name: 'the pull request head label', run: 'git fetch origin ${{ pr.head.label }}' },
  // A maintainer's answer may quote anyone: a reporter's error output holding `$(…)`.
  { name: 'an answer', run: 'echo ${{ steps.clarify.outputs.answers[0] }}' },
  { name: 'all answers through toJSON', run: 'echo ${{ toJSON(steps.clarify.outputs.answers) }}' },
  { name: 'an answer in upper case', run: 'echo ${{ STEPS.Clarify.OUTPUTS.Answers[0] }}' },
  { name: 'an ask step read whole', run: 'echo ${{ toJSON(steps.clarify) }}' },
  { name: "an ask step's outputs by a computed key", run: "echo ${{ steps.clarify.outputs[format('answ{0}', 'ers')] }}" },
  { name: 'every step at once', run: 'echo ${{ toJSON(steps) }}' },
];

const manifest = (run: string, extra = ''): string =>
  `${head}  - id: use\n    needs: [plan, build, clarify, ok]\n${extra}    run: |\n      true\n      ${run}\n`;

describe('agent- or issue-written text in a shell command', () => {
  it.each(refused)('refuses $name in `run:`, at its line, saying how to use env', ({ run, extra }) => {
    const yaml = manifest(run, extra);
    const r = loadWorkflowText('wf.yml', yaml);
    expect(r.valid).toBe(false);
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => d.message)).toEqual([expect.stringMatching(/^step `use` puts `.+` into a shell command; .* writes that text, and text like `\$\(curl …\)` in it would run\. Pass it through `env:` instead \(`env: \{ [A-Z_]+: \$\{\{ .+ \}\} \}`\) and use "\$[A-Z_]+" in the command$/)]);
    expect(errors[0]!.line).toBe(yaml.split('\n').findIndex((l) => l.includes(run)) + 1);
  });

  it("says an answer may quote anyone, and names the variable after it", () => {
    const r = loadWorkflowText('wf.yml', manifest('echo "${{ steps.clarify.outputs.answers[0] }}"'));
    expect(r.diagnostics[0]!.message).toContain("an answer may quote anyone (a reporter's error output pasted into it)");
    expect(r.diagnostics[0]!.message).toContain('(`env: { ANSWERS: ${{ steps.clarify.outputs.answers[0] }} }`) and use "$ANSWERS" in the command');
  });

  it('names the variable after what is read', () => {
    const r = loadWorkflowText('wf.yml', manifest('echo "${{ steps.plan.outputs.x }}"'));
    expect(r.diagnostics[0]!.message).toContain('an agent writes that text');
    expect(r.diagnostics[0]!.message).toContain('(`env: { X: ${{ steps.plan.outputs.x }} }`) and use "$X" in the command');
  });

  it('accepts the same values through env, and trusted values in the command', () => {
    const yaml =
      `${head}  - id: use\n    needs: [plan, build, clarify, ok]\n    for-each: \${{ steps.plan.outputs.tasks }}\n` +
      `    env:\n      X: \${{ steps.plan.outputs.x }}\n      ITEM: \${{ item }}\n      TITLE: \${{ issue.title }}\n      ANSWER: \${{ steps.clarify.outputs.answers[0] }}\n` +
      // inputs are given by a person with the role; who answered or approved are their logins; the rest by baton
      `    run: echo "$X" "$ITEM" "$TITLE" "$ANSWER" \${{ index }} \${{ issue.number }} \${{ steps.clarify.outputs.answeredBy[0] }} \${{ steps.ok.outputs.approvedBy }} \${{ steps.clarify.status }} \${{ steps.plan.status }} \${{ run.id }} \${{ repo.name }}\n`;
    const r = loadWorkflowText('wf.yml', yaml);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
