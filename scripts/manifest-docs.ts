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
    ...section('`inputs.<name>`', mapValues(props.inputs)),
    ...section('`agents.<name>`', mapValues(props.agents)),
    ...section('`agents.<name>.mcp-servers.<server>`', defs.mcpServer ?? {}),
    ...section('`budget`', props.budget),
    ...section('`steps[]`: keys of every step', step),
  ];
  for (const [key, prop] of Object.entries<Schema>(step.properties ?? {})) {
    const r = resolve(prop);
    if (r.type === 'object' && r.properties) lines.push(...section(`\`steps[].${key}\``, prop));
  }
  return lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd() + '\n';
}

export function loadSchema(): Schema {
  return JSON.parse(readFileSync(new URL('schema/workflow.schema.json', ROOT), 'utf8')) as Schema;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(DOC_PATH, renderManifestDocs(loadSchema()));
  console.log(`wrote ${DOC_PATH}`);
}
