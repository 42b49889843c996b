// `on.pull_request.forks: review`: the validator refuses, at the line a person would fix
// (marked `# <-`), every step that would run a fork's code outside the agent sandbox or write,
// `push-to-head`, and MCP servers that would hand the fork's agent a secret of the worker's.
import { describe, expect, it } from 'vitest';
import { loadWorkflowText } from '../../src/manifest/load.ts';
import { FORK_REVIEW_HEAD } from '../support/fork-review-head.ts';

const HEAD = FORK_REVIEW_HEAD;

function errors(yaml: string) {
  return loadWorkflowText('wf.yml', yaml).diagnostics.filter((d) => d.severity === 'error');
}

function markedLine(yaml: string): number {
  const i = yaml.split('\n').findIndex((l) => l.includes('# <-'));
  if (i === -1) throw new Error('test case has no `# <-` marker');
  return i + 1;
}

describe('a workflow with forks: review', () => {
  it('may read sandboxed and write nothing but its records: read-only agent steps, review (as a comment), ask, approve', () => {
    const yaml = `${HEAD}steps:
  - id: hold
    approve: { roles: [maintain] }
  - { id: look, agent: reviewer, writes: false, prompt: "look" }
  - id: review
    review: { agent: reviewer, verdicts: [comment] }
  - id: ask
    ask: { questions: ["Why?"] }
`;
    expect(loadWorkflowText('wf.yml', yaml).diagnostics).toEqual([]);
  });

  const refused: [string, string, RegExp][] = [
    ['a writing agent step', `  - id: fix # <-\n    agent: reviewer\n    prompt: fix it\n`, /step `fix` cannot run in a workflow with `on.pull_request.forks: review`: it writes/],
    ['a run step', `  - id: build\n    run: make # <-\n`, /step `build` cannot run .*: a `run` step runs a command on the fork's code/],
    ['a checks step', `  - id: ci\n    checks: { names: [test] } # <-\n`, /step `ci` cannot run .*: a `checks` step runs CI on the fork's code with this repository's token and secrets/],
    ['a pull-request step', `  - id: pr\n    pull-request: { title: x } # <-\n`, /step `pr` cannot run .*: a `pull-request` step opens a pull request/],
    // Attack: the fork's text steers the agent to the maintainers' gate label ("safe to test"),
    // whose `pull_request_target: labeled` job runs with the repository's secrets.
    ['a label step, even one whose labels are listed', `  - id: tag\n    label: { add: [safe to test], labels: [safe to test] } # <-\n`, /step `tag` cannot run .*: a label the App adds to a stranger's pull request can start other automation/],
    // Attack: an approval by the App counts toward required reviews.
    ['a review that may approve', `  - id: review\n    review:\n      agent: reviewer\n      verdicts: [comment, approve] # <-\n`, /step `review` cannot approve in a workflow with `on.pull_request.forks: review`/],
    ['a review that may request changes', `  - id: review\n    review:\n      agent: reviewer\n      verdicts: [request-changes] # <-\n`, /step `review` cannot request changes in a workflow with/],
  ];
  for (const [what, step, message] of refused) {
    it(`refuses ${what}, at its line`, () => {
      const yaml = `${HEAD}steps:\n${step}`;
      const found = errors(yaml);
      expect(found.map((d) => d.message)).toEqual([expect.stringMatching(message)]);
      expect(found[0]!.line).toBe(markedLine(yaml));
    });
  }

  it('refuses a review whose fix round would commit', () => {
    const yaml = `${HEAD}steps:
  - { id: fix, agent: reviewer, prompt: "fix" }
  - id: review
    review:
      agent: reviewer
      fix: fix # <-
`;
    const found = errors(yaml);
    expect(found.map((d) => d.message)).toEqual([
      expect.stringMatching(/step `fix` cannot run .*: it writes/),
      expect.stringMatching(/step `review` cannot run .*: its `fix` step would commit changes/),
    ]);
    expect(found[1]!.line).toBe(markedLine(yaml));
  });

  it('refuses push-to-head: true beside it', () => {
    const yaml = HEAD.replace('forks: review', 'forks: review\n    push-to-head: true # <-') + 'steps:\n  - { id: look, agent: reviewer, writes: false, prompt: "look" }\n';
    const found = errors(yaml);
    expect(found.map((d) => d.message)).toEqual([expect.stringContaining('`push-to-head: true` cannot go with `forks: review`')]);
    expect(found[0]!.line).toBe(markedLine(yaml));
  });

  it('refuses an MCP server that reads the worker\'s environment (a secret the fork\'s agent would get)', () => {
    const yaml = HEAD.replace(
      '  reviewer: { uses: claude-code }\n',
      '  reviewer:\n    uses: claude-code\n    mcp-servers:\n      docs: # <-\n        url: https://mcp.example.com/mcp\n        headers: { Authorization: "Bearer ${DOCS_TOKEN}" }\n',
    ) + 'steps:\n  - { id: look, agent: reviewer, writes: false, prompt: "look" }\n';
    const found = errors(yaml);
    expect(found.map((d) => d.message)).toEqual([expect.stringMatching(/MCP server `docs` of agent `reviewer` reads \$\{DOCS_TOKEN\}.*no secret but its model key/)]);
    expect(found[0]!.line).toBe(markedLine(yaml));
  });

  it('leaves the same steps alone without forks: review', () => {
    const yaml = `${HEAD.replace('    forks: review\n', '')}steps:\n  - { id: fix, agent: reviewer, prompt: "fix it" }\n  - { id: build, run: make }\n`;
    expect(errors(yaml)).toEqual([]);
  });
});
