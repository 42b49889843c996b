// Generates docs/manifest.md from schema/workflow.schema.json, so the reference can
// never drift from what the validator accepts. `npx tsx scripts/manifest-docs.ts`
import { PACKAGE_NAME, schemaUrl } from '../src/names.ts';
// rewrites the file; a test fails when the committed file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

type Schema = Record<string, any>;

const ROOT = new URL('..', import.meta.url);
export const DOC_PATH = fileURLToPath(new URL('docs/manifest.md', ROOT));

export function renderManifestDocs(schema: Schema): string {
  const defs: Schema = schema.$defs ?? {};
  const resolve = (s: Schema | undefined): Schema => {
    let cur = s ?? {};
    while (typeof cur.$ref === 'string') cur = defs[cur.$ref.replace('#/$defs/', '')] ?? {};
    return cur;
  };
  const typeOf = (s: Schema): string => {
    const r = resolve(s);
    if (r.enum) return r.enum.map((v: unknown) => `\`${String(v)}\``).join(' \\| ');
    if (r.const !== undefined) return `\`${String(r.const)}\``;
    const t = Array.isArray(r.type) ? r.type.join(' \\| ') : r.type;
    if (t === 'array') {
      const items = resolve(r.items);
      return `list of ${items.enum ? items.enum.map((v: unknown) => `\`${String(v)}\``).join(' \\| ') : (items.type ?? 'values')}`;
    }
    if (t) return String(t);
    if (r.oneOf || r.anyOf) return (r.oneOf ?? r.anyOf).map((x: Schema) => typeOf(x)).join(' \\| ');
    return 'any';
  };
  const esc = (text: unknown): string => String(text ?? '').replace(/\|/g, '\\|').replace(/\n+/g, ' ');
  const table = (s: Schema): string[] => {
    const r = resolve(s);
    const required = new Set<string>(r.required ?? []);
    const rows = ['| key | type | default | description |', '|---|---|---|---|'];
    for (const [key, prop] of Object.entries<Schema>(r.properties ?? {})) {
      const p = resolve(prop);
      const desc = esc(prop.description ?? p.description ?? prop.title ?? p.title);
      const def = prop.default ?? p.default;
      rows.push(`| \`${key}\`${required.has(key) ? ' (required)' : ''} | ${typeOf(prop)} | ${def === undefined ? '' : '`' + JSON.stringify(def) + '`'} | ${desc} |`);
    }
    const extra = r.additionalProperties;
    if (extra && typeof extra === 'object') rows.push(`| *any name* | ${typeOf(extra)} | | ${esc(resolve(extra).description ?? extra.description)} |`);
    return rows;
  };
  const section = (heading: string, s: Schema, intro?: string): string[] => {
    const r = resolve(s);
    const out = [`## ${heading}`, ''];
    const text = intro ?? r.description;
    if (text) out.push(String(text), '');
    out.push(...table(s), '');
    return out;
  };
  const mapValues = (s: Schema): Schema => resolve(resolve(s).additionalProperties);

  const props: Schema = schema.properties ?? {};
  const step = defs.step ?? {};
  const lines = [
    '# Workflow manifest reference',
    '',
    '<!-- Generated from schema/workflow.schema.json by scripts/manifest-docs.ts; do not edit by hand. -->',
    '',
    String(schema.description ?? ''),
    '',
    'Point your editor at the schema with a first line',
    `\`# yaml-language-server: $schema=${schemaUrl()}\``,
    `(the schema of the baton release the Action tag names), or a relative path to`,
    `\`node_modules/${PACKAGE_NAME}/schema/workflow.schema.json\`.`,
    '',
    '## Expressions',
    '',
    'Values may embed GitHub Actions expressions, `${{ … }}`, with the same syntax and functions',
    '(`contains`, `startsWith`, `endsWith`, `format`, `join`, `toJSON`, `fromJSON`). Contexts:',
    '`inputs`, `issue`, `pr`, `repo`, `run`, `steps.<id>.outputs` and `steps.<id>.status` (only of steps',
    'that run before, through `needs`), and `item` / `index` inside a `for-each` step. Outputs are typed',
    'JSON: a value that is one whole expression keeps its type (a list stays a list); embedded in text,',
    'objects and lists become JSON. In plain YAML values, quote anything that contains ` #`: YAML',
    'starts a comment there (`baton validate` refuses `prompt: Fix #${{ issue.number }}` for that reason).',
    'A run with no issue number (a local run, a run started on a pull request) leaves `#${{ issue.number }}`',
    "out of its questions, an approval's message, prompts and pull request rather than say `#0`:",
    '`issue #${{ issue.number }}` reads "the issue", `(#${{ issue.number }})` goes, and a line like',
    '`Fixes #${{ issue.number }}.` is dropped (`src/engine/issue-refs.ts`).',
    '',
    '### Text from issues, answers and agents never goes into a shell command',
    '',
    'In `run:`, an expression may read only what people with the role or baton gave: `inputs`, who',
    'answered or approved (`steps.<ask step>.outputs.answeredBy`, `steps.<approve step>.outputs.approvedBy`),',
    'a step\'s `status`, `index`, `repo`, `run`, `issue.number` / `pr.number` and their URLs. Anything',
    'an issue, a pull request or an agent wrote — `issue.title`, `issue.body`, `pr.*`, the outputs of',
    'agent, run and review steps, `item` — and the **answers** of an `ask` step',
    '(`steps.<ask step>.outputs.answers`: a maintainer may paste a reporter\'s error output into one) are',
    'refused there however they are spelt (`ISSUE.Title`, `toJSON(issue)`, `steps[\'plan\'].outputs`,',
    '`toJSON(steps.clarify)`, `toJSON(steps)`), at the file:line of the expression: text like',
    '`$(curl …)` in it would run. Pass it through `env:` instead; the command reads the variable, which',
    'the shell expands without running it:',
    '',
    '```yaml',
    '  - id: apply',
    '    env:',
    '      TASK: ${{ item }}',
    '      SUMMARY: ${{ steps.plan.outputs.summary }}',
    '    run: ./scripts/apply.sh "$TASK" "$SUMMARY"',
    '```',
    '',
    ...section('Top level', schema, ''),
    ...section('`on`: triggers', props.on),
    ...section('`on.pull_request`', defs.pullRequestTrigger ?? {}),
    ...section('`on.issues`', defs.issuesTrigger ?? {}),
    ...section('`on.workflow_run`', defs.workflowRunTrigger ?? {}),
    ...section('`on.schedule[]`', resolve(props.on).properties?.schedule?.items ?? {}),
    ...section('`inputs.<name>`', mapValues(props.inputs)),
    ...section('`agents.<name>`', mapValues(props.agents)),
    ...section('`agents.<name>.mcp-servers.<server>`', defs.mcpServer ?? {}),
    ...section('`agents.<name>.limits`', mapValues(props.agents).properties?.limits ?? {}),
    ...NETWORK_PROSE,
    ...section('`budget`', props.budget),
    ...section('`budget.per-day`', resolve(props.budget).properties?.['per-day'] ?? {}),
    ...section('`concurrency`', props.concurrency),
    ...section('`steps[]`: keys of every step', step),
  ];
  for (const [key, prop] of Object.entries<Schema>(step.properties ?? {})) {
    const r = resolve(prop);
    if (r.type === 'object' && r.properties) lines.push(...section(`\`steps[].${key}\``, prop));
    if (key === 'review') lines.push(...REVIEW_PROSE);
  }
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

/** How `network`, `sandbox` and `limits` fit together (src/manifest/network.ts, src/engine/sandbox-request.ts). */
const NETWORK_PROSE = [
  '## Network and sandbox',
  '',
  'An agent runs behind an allow-list: it reaches only the hosts its agent may reach, and every other',
  'connection is refused. What an agent may reach, `baton graph` and `baton doctor` print:',
  '',
  "- its backend's **model API** (the table in docs/agents.md, \"Network\"): `api.anthropic.com` for",
  '  claude-code, `api.openai.com` for codex, `generativelanguage.googleapis.com` for gemini, the Copilot',
  "  API for copilot; for aider and opencode the provider their `model` names (every provider of their",
  '  keys when it names none); nothing for `command`. Telemetry and update checks are not on the list.',
  "- the endpoint its **credential switches** select, when the switch is in the agent's `env`:",
  '  `CLAUDE_CODE_USE_BEDROCK` with `AWS_REGION` adds `bedrock-runtime.<region>.amazonaws.com`,',
  '  `CLAUDE_CODE_USE_VERTEX` with `CLOUD_ML_REGION` (gemini: `GOOGLE_GENAI_USE_VERTEXAI` with',
  '  `GOOGLE_CLOUD_LOCATION`) adds `<region>-aiplatform.googleapis.com` and `oauth2.googleapis.com`,',
  '  `ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL` and the like add their host. A switch set only in the worker',
  "  job's environment is not in the manifest: list its endpoint in `network.allow` (an Azure OpenAI",
  '  resource, `<resource>.openai.azure.com`, always needs listing).',
  "- its **MCP servers'** hosts: `registry.npmjs.org` for a server started with `npx` or `bunx`, `pypi.org`",
  '  and `files.pythonhosted.org` for `uvx`, the host (and port) of a `url` server. What a server itself',
  '  calls (a GitHub server calling `api.github.com`) goes in `network.allow`.',
  '- its `network.allow`. **Package registries are not allowed unless listed there**: an agent that',
  '  runs `npm install` needs `registry.npmjs.org` in its list.',
  '',
  "A step's `network` narrows its agent's list, never widens it: `default` keeps it, `off` allows nothing",
  '(not even the model API: for `command` agents), and `{ allow: [...] }` keeps the model API and only',
  "the listed hosts, each of which the agent's list must allow (`baton validate` names the one that it",
  'does not, at its line). A fallback agent running the step gets its own list, narrowed the same way.',
  '',
  '**Run steps** run commands on code agents wrote (`npm test` runs their tests), so they run behind an',
  'allow-list too: by default the package registries (`registry.npmjs.org`, `registry.yarnpkg.com`,',
  '`pypi.org`, `files.pythonhosted.org`, `proxy.golang.org`, `sum.golang.org`, `index.crates.io`,',
  '`static.crates.io`, `rubygems.org`, `repo.maven.apache.org`), so installing dependencies keeps working;',
  "a run step's `network: { allow: [...] }` replaces that list, `off` allows nothing.",
  '',
  'Host patterns are lowercase: `api.example.com` allows that host on ports 443 and 80 only;',
  '`*.example.com` allows every name under example.com (`a.example.com`, `a.b.example.com`) but not',
  'example.com itself; `api.example.com:8443` allows that port only; `10.0.0.5` and `[fd00::1]:8080`',
  'allow an address exactly. Refused: URLs and paths, `*` anywhere but as a whole first label, `*` on a',
  'top-level domain (`*.com`), address ranges, names that end in a number but are no IPv4 address',
  '(`127.1`), and letters other than ASCII (write an international name in its `xn--` form). A wildcard',
  'under a suffix where anyone can host (`*.amazonaws.com`, `*.github.io`) is warned about: it lets an',
  "agent send the code to anyone's bucket. Every allowed model API is a way out too, with someone",
  "else's key; the allow-list narrows where code can go, it does not close every door.",
  '',
  '`sandbox: preferred` (the default) runs the agent with every protection the worker can put in force',
  '(the allow-list proxy, a packet filter for what ignores the proxy, a user of its own, the limits)',
  "and the step's record says which were missing; `sandbox: required` on the agent or on a step fails",
  'the attempt instead. A step can require the sandbox of an agent that only prefers it, not the reverse.',
  '',
];

/** Where a review step posts, and what `verdicts` change (src/engine/steps/review.ts, src/hosts/github/review.ts). */
const REVIEW_PROSE = [
  '### Reviewing a pull request the run did not open',
  '',
  "A run started on someone else's pull request (its thread is that pull request, and the run has no PR",
  'of its own) posts its review there. `verdicts` says which review events the step may use: with',
  '`verdicts: [approve, request-changes]` the reviewer\'s approval is posted as an approving review and',
  'its change requests as a "Request changes" review; a verdict not listed is posted as a comment.',
  "GitHub refuses both from the pull request's own author (a PR baton's App opened), and from a",
  "workflow's `GITHUB_TOKEN` unless the repository allows GitHub Actions to approve pull requests.",
  '',
  'The step is done only once GitHub has the review: its outputs are `approved`, `summary`, `comments`,',
  '`event` (`APPROVE`, `REQUEST_CHANGES` or `COMMENT`) and `url` (the review). A review GitHub refuses',
  "fails the step with GitHub's reason. Without `fix`, requested changes are the step's result, not a",
  'failure; with `fix`, a fix round follows as on the run\'s own PR. The review says which commit was',
  'reviewed and how many files the pull request changes, even an approval with no comments.',
  '',
  'A reviewer comment with `suggestion` (and, for several lines, `start_line`, `line` being the last)',
  'is posted as a suggested change the author can apply; a comment on a line outside the diff goes into',
  "the review's text instead.",
  '',
];

export function loadSchema(): Schema {
  return JSON.parse(readFileSync(new URL('schema/workflow.schema.json', ROOT), 'utf8')) as Schema;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(DOC_PATH, renderManifestDocs(loadSchema()));
  console.log(`wrote ${DOC_PATH}`);
}
