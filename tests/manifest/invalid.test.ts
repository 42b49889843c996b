// Each broken manifest must be refused with a message a person understands, at the
// line a person would fix. The line is marked in each case with `# <-`.
import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/manifest/load.ts';

interface Case {
  name: string;
  yaml: string;
  message: string | RegExp;
  /** Column, when it matters (errors inside an expression). */
  column?: number;
}

const agents = `agents:
  coder: { uses: claude-code }
  reviewer: { uses: codex }
`;

const cases: Case[] = [
  // YAML itself
  { name: 'unclosed flow list', yaml: `steps: [\n  - id: a\nname: x # <-\n`, message: /YAML syntax error: Flow sequence .* must be sufficiently indented and end with a \]/ },
  { name: 'duplicate key', yaml: `name: a\nname: b # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /YAML syntax error: Map keys must be unique/ },
  { name: 'tab indentation', yaml: `steps:\n\t- id: a # <-\n`, message: /YAML syntax error/ },
  { name: 'empty file', yaml: `# <-\n`, message: 'the file is empty; a workflow needs at least `steps`' },
  // Schema: top level
  { name: 'unknown top-level key', yaml: `stepz: [] # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /unknown key `stepz` at the top level; did you mean `steps`\?/ },
  { name: 'no steps', yaml: `name: only-a-name # <-\n`, message: 'missing `steps` at the top level' },
  { name: 'empty steps', yaml: `steps: [] # <-\n`, message: '`steps` at the top level needs at least 1 item' },
  { name: 'bad workflow name', yaml: `name: Fix_Issue # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /`name` at the top level is `Fix_Issue`; use lower-case letters, digits and `-`/ },
  { name: 'steps is a mapping', yaml: `steps: # <-\n  a: { run: "true" }\n`, message: '`steps` at the top level must be a list, not a mapping' },
  // Schema: triggers
  { name: 'unknown key in on', yaml: `on:\n  label: [x] # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /unknown key `label` in `on`; did you mean `labels`\?/ },
  { name: 'unknown role', yaml: `on:\n  roles: [owner] # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /must be one of admin, maintain, write, triage, read, not `owner`/ },
  { name: 'command with a space', yaml: `on:\n  commands: ["fix it"] # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /`fix it`; use lower-case letters/ },
  // Schema: inputs, agents, budget
  { name: 'choice without options', yaml: `inputs:\n  level: { type: choice } # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /missing `options` in input `level`/ },
  { name: 'unknown input type', yaml: `inputs:\n  n: { type: int } # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /`type` in input `n` must be one of string, number, boolean, choice, not `int`/ },
  { name: 'unknown backend', yaml: `agents:\n  coder: { uses: claude } # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /`uses` in agent `coder` must be one of claude-code, codex, aider, opencode, gemini, copilot, command, not `claude`/ },
  { name: 'command backend without run', yaml: `agents:\n  script: { uses: command } # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /missing `run` in agent `script`/ },
  { name: 'agent without uses', yaml: `agents:\n  coder: { model: x } # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /missing `uses` in agent `coder`/ },
  { name: 'negative budget', yaml: `budget: { max-cost-usd: -5 } # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /`max-cost-usd` in `budget` is -5; it must be more than 0/ },
  { name: 'fractional max-steps', yaml: `budget: { max-steps: 2.5 } # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /`max-steps` in `budget` must be a whole number/ },
  // Schema: steps
  { name: 'step without id', yaml: `steps:\n  - run: "true" # <-\n`, message: /missing `id` in step #1/ },
  { name: 'step id starting with a digit', yaml: `steps:\n  - id: 1st # <-\n    run: "true"\n`, message: /step ids start with a letter/ },
  { name: 'step id with a dot', yaml: `steps:\n  - id: a.b # <-\n    run: "true"\n`, message: /`id` in step `a.b` is `a.b`; step ids start with a letter/ },
  { name: 'step with no kind', yaml: `steps:\n  - id: a # <-\n    needs: []\n`, message: 'step `a` says nothing to do; give it exactly one of agent, run, ask, review, checks, approve, pull-request, label' },
  { name: 'step with two kinds', yaml: `${agents}steps:\n  - id: a # <-\n    run: "true"\n    agent: coder\n    prompt: hi\n`, message: 'step `a` has `agent` and `run`; a step has exactly one kind: agent, run, ask, review, checks, approve, pull-request, label' },
  { name: 'unknown step key', yaml: `steps:\n  - id: a\n    run: "true"\n    retry: 2 # <-\n`, message: /unknown key `retry` in step `a`; did you mean `retries`\?/ },
  { name: 'agent step without prompt', yaml: `${agents}steps:\n  - id: a # <-\n    agent: coder\n`, message: '`agent` in step `a` also needs `prompt`' },
  { name: 'prompt on a run step', yaml: `steps:\n  - id: a\n    run: "true"\n    prompt: hi # <-\n`, message: /`prompt`.*step `a`/ },
  { name: 'retries too high', yaml: `steps:\n  - id: a\n    run: "true"\n    retries: 50 # <-\n`, message: /`retries` in step `a` is 50; it must be at most 10/ },
  { name: 'needs as a string', yaml: `steps:\n  - id: a\n    run: "true"\n  - id: b\n    run: "true"\n    needs: a # <-\n`, message: /`needs` in step `b` must be a list, not the text `a`/ },
  { name: 'needs listed twice', yaml: `steps:\n  - id: a\n    run: "true"\n  - id: b\n    run: "true"\n    needs: [a, a] # <-\n`, message: /`needs` in step `b` lists the same value twice/ },
  { name: 'ask without questions', yaml: `steps:\n  - id: a\n    ask: { timeout-hours: 2 } # <-\n`, message: /missing `questions` in step `a`/ },
  { name: 'checks without names', yaml: `steps:\n  - id: a\n    checks: { max-rounds: 2 } # <-\n`, message: /missing `names` in step `a`/ },
  { name: 'review max-rounds zero', yaml: `${agents}steps:\n  - id: a\n    review: { agent: reviewer, max-rounds: 0 } # <-\n`, message: /`max-rounds` in step `a` is 0; it must be at least 1/ },
  { name: 'pull-request without title', yaml: `steps:\n  - id: a\n    pull-request: { draft: true } # <-\n`, message: /missing `title` in step `a`/ },
  // Semantics: the graph
  {
    name: 'needs an unknown step',
    yaml: `steps:\n  - id: a\n    run: "true"\n  - id: b\n    run: "true"\n    needs: [c] # <-\n`,
    message: 'step `b` needs `c`, which is not a step of this workflow; steps are: a, b',
  },
  { name: 'needs itself', yaml: `steps:\n  - id: a\n    run: "true"\n    needs: [a] # <-\n`, message: 'step `a` needs itself' },
  {
    name: 'needs cycle',
    yaml: `steps:\n  - id: a\n    run: "true"\n    needs: [b] # <-\n  - id: b\n    run: "true"\n    needs: [a]\n`,
    message: 'steps `a` → `b` → `a` need each other in a cycle, so none of them can start',
  },
  { name: 'duplicate step id', yaml: `steps:\n  - id: a\n    run: "true"\n  - id: a # <-\n    run: "false"\n`, message: 'step id `a` is used twice (steps 1 and 2); step ids must be unique' },
  // Semantics: agents and fix targets
  {
    name: 'unknown agent',
    yaml: `${agents}steps:\n  - id: a\n    agent: codr # <-\n    prompt: hi\n`,
    message: 'step `a` uses agent `codr`, which is not defined under `agents`; agents are: coder, reviewer; did you mean `coder`?',
  },
  { name: 'review with an unknown agent', yaml: `${agents}steps:\n  - id: a\n    review: { agent: critic } # <-\n`, message: /step `a` uses agent `critic`, which is not defined/ },
  {
    name: 'fix target that does not exist',
    yaml: `${agents}steps:\n  - id: impl\n    agent: coder\n    prompt: hi\n  - id: rev\n    review: { agent: reviewer, fix: imp } # <-\n`,
    message: /step `rev` sends fixes to `imp`, which is not a step of this workflow.*did you mean `impl`\?/,
  },
  {
    name: 'fix target that does not write',
    yaml: `${agents}steps:\n  - id: plan\n    agent: coder\n    prompt: hi\n    writes: false\n  - id: rev\n    review: { agent: reviewer, fix: plan } # <-\n`,
    message: 'step `rev` sends fixes to `plan`, which does not change files (`writes: false`); `fix` must name an agent or run step that writes',
  },
  {
    name: 'fix target that is an ask step',
    yaml: `${agents}steps:\n  - id: q\n    ask: { questions: [why] }\n  - id: ci\n    checks: { names: [test], fix: q } # <-\n`,
    message: /sends fixes to `q`, which does not change files \(a `ask` step\)/,
  },
  {
    name: 'fix target that runs later',
    yaml: `${agents}steps:\n  - id: rev\n    review: { agent: reviewer, fix: impl } # <-\n  - id: impl\n    agent: coder\n    prompt: hi\n`,
    message: 'step `rev` sends fixes to `impl`, which does not run before it; add `impl` to its `needs` (directly or through another step)',
  },
  // Semantics: expressions
  {
    name: 'unknown context',
    yaml: `steps:\n  - id: a\n    run: echo \${{ secrets.TOKEN }} # <-\n`,
    message: /`run` of step `a`: unknown context `secrets` in `secrets.TOKEN`; contexts are: inputs, issue, pr, repo, run, steps/,
    column: 15,
  },
  { name: 'unknown function', yaml: `steps:\n  - id: a\n    run: echo \${{ tojsn(issue) }} # <-\n`, message: /unknown function `tojsn`.*did you mean `toJSON`\?/ },
  { name: 'syntax error in expression', yaml: `steps:\n  - id: a\n    run: echo \${{ issue.number == }} # <-\n`, message: /invalid expression `issue.number ==`: Unexpected end of expression/ },
  { name: 'unclosed expression', yaml: `steps:\n  - id: a\n    run: echo \${{ issue.number # <-\n`, message: /`run` of step `a`: `\$\{\{` is never closed with `\}\}`/ },
  {
    name: 'reading a later step',
    yaml: `steps:\n  - id: a\n    run: echo \${{ steps.b.outputs }} # <-\n  - id: b\n    run: "true"\n`,
    message: 'step `a` reads `steps.b`, which does not run before it; add `b` to its `needs` (directly or through another step)',
  },
  {
    name: 'reading an unknown step',
    yaml: `steps:\n  - id: a\n    run: "true"\n  - id: b\n    run: echo \${{ steps.c.outputs }} # <-\n`,
    message: 'step `b` reads `steps.c`, which is not a step of this workflow; steps are: a, b',
  },
  {
    name: 'reading a parallel step',
    yaml: `steps:\n  - id: a\n    run: "true"\n    needs: []\n  - id: b\n    needs: []\n    run: echo \${{ steps.a.status }} # <-\n`,
    message: /step `b` reads `steps.a`, which does not run before it/,
  },
  {
    name: 'reading something a step does not offer',
    yaml: `steps:\n  - id: a\n    run: "true"\n  - id: b\n    run: echo \${{ steps.a.output.x }} # <-\n`,
    message: 'step `b` reads `steps.a.output`; a step offers only `outputs` and `status`; did you mean `outputs`?',
  },
  {
    name: 'reading an undeclared output',
    yaml: `${agents}steps:\n  - id: plan\n    agent: coder\n    prompt: hi\n    outputs: { type: object, properties: { tasks: { type: array } } }\n  - id: b\n    run: echo \${{ steps.plan.outputs.taks }} # <-\n`,
    message: 'step `b` reads output `taks` of step `plan`, which has no such output; its outputs are: tasks; did you mean `tasks`?',
  },
  {
    name: 'undeclared input',
    yaml: `inputs:\n  scope: { type: string }\nsteps:\n  - id: a\n    run: echo \${{ inputs.scop }} # <-\n`,
    message: 'step `a` reads `inputs.scop`, which is not declared under `inputs`; inputs are: scope; did you mean `scope`?',
  },
  {
    name: 'issue text in a shell command',
    yaml: `steps:\n  - id: a\n    run: echo "\${{ issue.title }}" # <-\n`,
    message: 'step `a` puts `issue.title` into a shell command; anyone who can write on the issue or pull request writes that text, and text like `$(curl …)` in it would run. Pass it through `env:` instead (`env: { TITLE: ${{ issue.title }} }`)',
    column: 16,
  },
  { name: 'item outside a fan-out', yaml: `steps:\n  - id: a\n    run: echo \${{ item }} # <-\n`, message: /`item` is only available in steps with `for-each`/ },
  {
    name: 'item in the for-each expression itself',
    yaml: `steps:\n  - id: a\n    run: "true"\n    for-each: \${{ item }} # <-\n`,
    message: /`item` is only available in the fields of a `for-each` step other than `if` and `for-each`/,
  },
  { name: 'bad if', yaml: `steps:\n  - id: a\n    run: "true"\n    if: inputs.x === 1 # <-\n`, message: /`if` of step `a`: invalid expression/ },
  // Semantics: fan-out
  {
    name: 'for-each over text',
    yaml: `steps:\n  - id: a\n    run: "true"\n    for-each: "a, b, c" # <-\n`,
    message: '`for-each` in step `a` is `a, b, c`; it must be one `${{ }}` expression',
  },
  {
    name: 'for-each over a string output',
    yaml: `${agents}steps:\n  - id: plan\n    agent: coder\n    prompt: hi\n    outputs: { type: object, properties: { summary: { type: string } } }\n  - id: impl\n    run: "true"\n    for-each: \${{ steps.plan.outputs.summary }} # <-\n`,
    message: '`for-each` of step `impl` reads `steps.plan.outputs.summary`, which the `outputs` of step `plan` declare as string, not a list',
  },
  {
    name: 'for-each over a string input',
    yaml: `inputs:\n  files: { type: string }\nsteps:\n  - id: a\n    run: "true"\n    for-each: \${{ inputs.files }} # <-\n`,
    message: /reads input `files`, which is a string, not a list; use `fromJSON\(inputs.files\)`/,
  },
  {
    name: 'for-each on a review step',
    yaml: `${agents}steps:\n  - id: a\n    review: { agent: reviewer }\n    for-each: \${{ fromJSON('[1,2]') }} # <-\n`,
    message: '`for-each` of step `a` has no effect: only agent and run steps fan out, and this is a `review` step',
  },
  // Label steps
  { name: 'label step without add', yaml: `steps:\n  - id: a\n    label: {} # <-\n`, message: /missing `add` in step `a`/ },
  { name: 'label add that is not an expression', yaml: `steps:\n  - id: a\n    label: { add: bug, labels: [bug] } # <-\n`, message: '`add` in step `a` is `bug`; it must be one `${{ }}` expression' },
  { name: 'label add as an empty list', yaml: `steps:\n  - id: a\n    label:\n      labels: [bug]\n      add: [] # <-\n`, message: /`add` in step `a` needs at least 1 item/ },
  { name: 'label step with a second kind', yaml: `steps:\n  - id: a # <-\n    pull-request: { title: t }\n    label: { add: [bug] }\n`, message: 'step `a` has `pull-request` and `label`; a step has exactly one kind' },
  {
    name: 'label name longer than GitHub allows',
    yaml: `steps:\n  - id: a\n    label:\n      labels: [bug]\n      add:\n        - bug\n        - ${'x'.repeat(51)} # <-\n`,
    message: '`add` item 2 of step `a` has 51 characters; GitHub\'s label names have at most 50, so the repository cannot have this label',
  },
  { name: 'blank label name', yaml: `steps:\n  - id: a\n    label:\n      labels: [bug]\n      add: ["  "] # <-\n`, message: '`add` item 1 of step `a` is blank' },
  {
    name: 'label add reading a step that runs later',
    yaml: `${agents}steps:\n  - id: a\n    label:\n      labels: [bug]\n      add: \${{ steps.b.outputs.labels }} # <-\n  - { id: b, agent: coder, prompt: hi }\n`,
    message: 'step `a` reads `steps.b`, which does not run before it',
  },
  {
    name: 'label add reading an output the step does not have',
    yaml: `${agents}steps:\n  - id: b\n    agent: coder\n    prompt: hi\n    outputs: { type: object, additionalProperties: false, properties: { labels: { type: array } } }\n  - id: a\n    label:\n      labels: [bug]\n      add: \${{ steps.b.outputs.lables }} # <-\n`,
    message: /step `a` reads output `lables` of step `b`, which has no such output; its outputs are: labels/,
  },
  {
    name: 'for-each on a label step',
    yaml: `steps:\n  - id: a\n    label: { add: [bug], labels: [bug] }\n    for-each: \${{ fromJSON('[1,2]') }} # <-\n`,
    message: '`for-each` of step `a` has no effect: only agent and run steps fan out, and this is a `label` step',
  },
  {
    name: 'label step without the labels it may add',
    yaml: `steps:\n  - id: a\n    label: # <-\n      add: [bug]\n`,
    message: /missing `labels` in step `a`: a label step lists every label it may add \(`labels: \[bug, enhancement, question\]`\), and any other name `add` yields/,
  },
  { name: 'label list with an expression', yaml: `steps:\n  - id: a\n    label:\n      add: [bug]\n      labels: [bug, "\${{ inputs.more }}"] # <-\n`, message: '`labels` item 2 of step `a` is an expression' },
  {
    name: 'label list holding the label that starts the workflow',
    yaml: `on: { labels: ["baton:tri"] }\nsteps:\n  - id: a\n    label:\n      add: [bug]\n      labels: [bug, "Baton:Tri"] # <-\n`,
    message: '`labels` item 2 of step `a` is `baton:tri`, the label that starts this workflow',
  },
  {
    name: 'label add naming a label its list lacks',
    yaml: `steps:\n  - id: a\n    label:\n      labels: [bug]\n      add:\n        - bug\n        - security # <-\n`,
    message: "`add` item 2 of step `a` is `security`, which the step's `labels` does not list, so it would never be added",
  },
  { name: 'ask questions that are not an expression', yaml: `steps:\n  - id: a\n    ask: { questions: "why?" } # <-\n`, message: '`questions` in step `a` is `why?`; it must be one `${{ }}` expression' },
  // Semantics: outputs, inputs, triggers
  {
    name: 'invalid outputs schema',
    yaml: `${agents}steps:\n  - id: a\n    agent: coder\n    prompt: hi\n    outputs: { type: objekt } # <-\n`,
    message: /the `outputs` of step `a` is not a valid JSON Schema/,
  },
  { name: 'choice default not an option', yaml: `inputs:\n  level:\n    type: choice\n    options: [low, high]\n    default: medium # <-\nsteps: [{ id: a, run: "true" }]\n`, message: 'the default of input `level` is `medium`, which is not one of its options: low, high' },
  { name: 'number input with text default', yaml: `inputs:\n  n:\n    type: number\n    default: lots # <-\nsteps: [{ id: a, run: "true" }]\n`, message: '`default` in input `n` must be a number, not the text `lots`' },
  { name: 'command that shadows a built-in', yaml: `on:\n  commands: [status] # <-\nsteps: [{ id: a, run: "true" }]\n`, message: /`status` in `on` is reserved; it cannot be any of .*status/ },
  {
    name: 'branch filter with an unclosed bracket',
    yaml: `on:\n  pull_request:\n    branches:\n      - main\n      - 'release/v[0-9' # <-\nsteps: [{ id: a, run: "true" }]\n`,
    message: '`on.pull_request.branches`: "release/v[0-9" is not a filter pattern GitHub reads: `[` at position 10 is never closed by `]`',
  },
  {
    name: 'paths filter of only negations',
    yaml: `on:\n  pull_request:\n    paths:\n      - '!docs/**' # <-\n      - '!*.md'\nsteps: [{ id: a, run: "true" }]\n`,
    message: '`on.pull_request.paths`: every pattern starts with `!`',
  },
  { name: 'extends an unknown workflow', yaml: `extends: fix-everything # <-\n`, message: '`extends` names `fix-everything`, which is not a workflow of workflows-library/' },
];

function markedLine(yaml: string): number {
  const lines = yaml.split('\n');
  const i = lines.findIndex((l) => l.includes('# <-'));
  if (i === -1) throw new Error('test case has no `# <-` marker');
  return i + 1;
}

describe('invalid manifests', () => {
  it('has at least 40 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('$name', ({ yaml, message, column }) => {
    const result = loadWorkflowText('wf.yml', yaml);
    expect(result.valid).toBe(false);
    const errors = result.diagnostics.filter((d) => d.severity === 'error');
    const matching = errors.filter((d) => (typeof message === 'string' ? d.message.includes(message) : message.test(d.message)));
    expect(matching, `errors were:\n${errors.map((d) => `${d.line}:${d.column} ${d.message}`).join('\n')}`).not.toHaveLength(0);
    const hit = matching[0]!;
    expect(hit.file).toBe('wf.yml');
    expect(hit.line).toBe(markedLine(yaml));
    if (column !== undefined) expect(hit.column).toBe(column);
  });
});

describe('reserved names next to other errors', () => {
  it('still reports a built-in command when the file has other schema errors', () => {
    const r = loadWorkflowText('wf.yml', 'on:\n  commands: [cancel]\nsteps:\n  - id: a\n    run: "true"\n    retries: -1\n');
    const messages = r.diagnostics.map((d) => `${d.line}: ${d.message}`);
    expect(messages).toContainEqual(expect.stringMatching(/^2: `cancel` in `on` is reserved/));
    expect(messages).toContainEqual(expect.stringMatching(/^6: `retries` in step `a` is -1/));
  });
});

describe('values cut short by YAML comments', () => {
  it('refuses a plain value whose `#${{` would start a comment', () => {
    const r = loadWorkflowText('wf.yml', 'steps:\n  - id: a\n    run: echo fix #${{ issue.number }} now\n');
    expect(r.valid).toBe(false);
    expect(r.diagnostics[0]).toMatchObject({
      line: 3,
      column: 19,
      message: '`#` here starts a YAML comment, so `#${{ issue.number }} now` is dropped from the value; put the value in quotes',
    });
  });

  it('accepts the same text quoted or in a block', () => {
    expect(loadWorkflowText('wf.yml', 'steps:\n  - id: a\n    run: "echo fix #${{ issue.number }} now"\n').valid).toBe(true);
    expect(loadWorkflowText('wf.yml', 'steps:\n  - id: a\n    run: |\n      echo fix #${{ issue.number }} now\n').valid).toBe(true);
    expect(loadWorkflowText('wf.yml', 'steps:\n  - id: a # a real comment\n    run: "true"\n').valid).toBe(true);
  });
});

describe('label steps that are fine', () => {
  it('take a list of names or one expression, and never write', () => {
    const r = loadWorkflowText('wf.yml', 'agents: { t: { uses: claude-code } }\nsteps:\n  - { id: c, agent: t, prompt: hi, writes: false }\n  - id: a\n    label: { add: ["${{ steps.c.outputs.labels }}"], labels: [bug] }\n  - id: b\n    label:\n      add: ${{ steps.c.outputs.labels }}\n      labels: [bug, good first issue]\n');
    expect(r.diagnostics).toEqual([]);
    const steps = r.loaded!.workflow.steps;
    expect(steps[1]).toMatchObject({ kind: 'label', add: ['${{ steps.c.outputs.labels }}'], writes: false, needs: ['c'] });
    expect(steps[2]).toMatchObject({ kind: 'label', add: '${{ steps.c.outputs.labels }}', labels: ['bug', 'good first issue'], writes: false });
  });
});
