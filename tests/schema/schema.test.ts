import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { AJV_OPTIONS, compileSchema, errorsOf, libraryFiles, loadSchema, readLibrary, root, type Found } from './helpers.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTION_MAJOR, HOME_REPO, schemaUrl } from '../../src/names.ts';

const validate = compileSchema();

/** A small valid manifest; each case below breaks one thing in a copy of it. */
function base(): any {
  return {
    name: 'demo',
    on: { labels: ['baton:demo'], commands: ['demo'] },
    inputs: { scope: { type: 'string', default: '' } },
    agents: { coder: { uses: 'claude-code' }, script: { uses: 'command', run: ['./agent.sh'] } },
    steps: [
      { id: 'plan', agent: 'coder', prompt: 'Plan it', writes: false, outputs: { type: 'object' } },
      { id: 'build', run: 'npm run build' },
    ],
  };
}

function withChange(change: (doc: any) => void): any {
  const doc = base();
  change(doc);
  return doc;
}

/** The errors that matter: ajv's "must match then/else schema" companions say nothing new. */
function meaningful(doc: unknown): Found[] {
  return errorsOf(validate, doc).filter((e) => e.keyword !== 'if');
}

describe('workflow schema', () => {
  it('compiles with Ajv 2020-12 in strict mode', () => {
    const ajv = new Ajv2020(AJV_OPTIONS);
    expect(() => ajv.compile(loadSchema())).not.toThrow();
  });

  it('is a 2020-12 schema whose $id is where releases publish it, the URL init and the docs give', () => {
    const schema = loadSchema();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(schemaUrl());
    expect(schema.$id).toBe(`https://raw.githubusercontent.com/${HOME_REPO}/${ACTION_MAJOR}/schema/workflow.schema.json`);
    for (const doc of ['README.md', 'docs/manifest.md']) {
      const urls = [...readFileSync(join(root, doc), 'utf8').matchAll(/\$schema=(\S+?)`?$/gm)].map((m) => m[1]);
      expect(urls.length, doc).toBeGreaterThan(0);
      for (const u of urls) expect(u, doc).toBe(schemaUrl());
    }
  });

  it('gives every property a title and a description (editors show them)', () => {
    const schema = loadSchema();
    const resolve = (s: any): any => (s && typeof s.$ref === 'string' ? schema.$defs[s.$ref.replace('#/$defs/', '')] : s);
    const missing: string[] = [];
    const walk = (node: any, path: string): void => {
      if (!node || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        node.forEach((child, i) => walk(child, `${path}/${i}`));
        return;
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === 'properties' && value && typeof value === 'object') {
          for (const [prop, sub] of Object.entries(value as Record<string, unknown>)) {
            if (typeof sub === 'boolean') continue; // `false`: the key is forbidden there
            const target = resolve(sub);
            if (!target?.title || !target?.description) missing.push(`${path}/properties/${prop}`);
          }
        }
        walk(value, `${path}/${key}`);
      }
    };
    // `if` conditions restate properties only to test them; they are not documentation.
    const strip = (node: any): any => {
      if (!node || typeof node !== 'object') return node;
      if (Array.isArray(node)) return node.map(strip);
      const out: any = {};
      for (const [k, v] of Object.entries(node)) if (k !== 'if' && k !== 'then' && k !== 'else') out[k] = strip(v);
      return out;
    };
    walk(strip(schema), '#');
    expect(missing).toEqual([]);
  });

  it('carries the defaults of the manifest', () => {
    const d = loadSchema().$defs;
    expect(d.triggers.properties.roles.default).toEqual(['admin', 'maintain', 'write']);
    expect(d.input.properties.type.default).toBe('string');
    expect(d.input.properties.required.default).toBe(false);
    expect(d.step.properties.retries.default).toBe(0);
    expect(d.step.properties.writes.default).toBe(true);
    expect(d.review.properties['max-rounds'].default).toBe(3);
    expect(d.checks.properties['max-rounds'].default).toBe(2);
    expect(d.pullRequest.properties.draft.default).toBe(true);
  });

  it('accepts the base document and a full fix-issue manifest using every key family', () => {
    expect(errorsOf(validate, base())).toEqual([]);
    const full = {
      name: 'fix-issue',
      description: 'Plan, implement, review and verify a fix for an issue.',
      on: { labels: ['baton:fix-issue'], commands: ['fix-issue', 'fix'], roles: ['admin', 'maintain', 'write'] },
      inputs: { scope: { type: 'string', default: '', description: 'Area of the code to touch' } },
      agents: {
        coder: { uses: 'claude-code', model: 'claude-sonnet-4-5', 'timeout-minutes': 40 },
        reviewer: { uses: 'codex' },
        script: { uses: 'command', run: ['./scripts/agent.sh'] },
      },
      budget: { 'max-steps': 30, 'max-minutes': 240, 'max-cost-usd': 25 },
      steps: [
        { id: 'clarify', ask: { questions: ['Which endpoint?', 'Migration?'], 'timeout-hours': 72 }, if: "${{ inputs.scope == '' }}" },
        { id: 'plan', agent: 'coder', prompt: 'Plan', outputs: { type: 'object', required: ['tasks'] }, writes: false },
        { id: 'implement', needs: ['plan'], agent: 'coder', 'for-each': '${{ steps.plan.outputs.tasks }}', 'max-parallel': 3, prompt: 'Implement: ${{ item }}', retries: 2 },
        { id: 'review', needs: ['implement'], review: { agent: 'reviewer', 'max-rounds': 3, fix: 'implement' } },
        { id: 'ci', needs: ['review'], checks: { names: ['test', 'lint'], 'timeout-minutes': 60, fix: 'implement', 'max-rounds': 2, local: { test: 'npm test', lint: 'npm run lint' } } },
        { id: 'pr', needs: ['ci'], 'pull-request': { title: 'Fix #${{ issue.number }}', draft: true } },
      ],
    };
    expect(errorsOf(validate, full)).toEqual([]);
  });

  it('accepts every kind in its smallest form, and `approve: {}`', () => {
    const doc = withChange((d) => {
      d.agents.reviewer = { uses: 'codex' };
      d.steps.push(
        { id: 'ask1', ask: { questions: '${{ steps.plan.outputs.questions }}' } },
        { id: 'rev', review: { agent: 'reviewer' } },
        { id: 'ci', checks: { names: ['*'] } },
        { id: 'ok', approve: {} },
        { id: 'pr', 'pull-request': { title: 'Done' } },
        { id: 'run2', run: './gen.sh', outputs: true },
      );
    });
    expect(errorsOf(validate, doc)).toEqual([]);
  });

  it('needs no steps when the workflow extends a library file', () => {
    expect(errorsOf(validate, { extends: 'fix-issue' })).toEqual([]);
    expect(errorsOf(validate, { extends: 'fix-issue.yml', agents: { coder: { uses: 'codex' } } })).toEqual([]);
  });

  // One broken thing per document: where ajv reports it and with which keyword.
  const invalid: Array<[string, () => unknown, string, string, Record<string, unknown>?]> = [
    ['an unknown top-level key', () => withChange((d) => (d.stpes = [])), '', 'additionalProperties', { additionalProperty: 'stpes' }],
    ['an unknown key in a step', () => withChange((d) => (d.steps[1].need = ['plan'])), '/steps/1', 'additionalProperties', { additionalProperty: 'need' }],
    ['an unknown key in an agent', () => withChange((d) => (d.agents.coder.modle = 'x')), '/agents/coder', 'additionalProperties', { additionalProperty: 'modle' }],
    ['an unknown key in `on`', () => withChange((d) => (d.on.label = ['x'])), '/on', 'additionalProperties', { additionalProperty: 'label' }],
    ['an unknown key in a kind object', () => withChange((d) => d.steps.push({ id: 'r', review: { agent: 'coder', rounds: 2 } })), '/steps/2/review', 'additionalProperties', { additionalProperty: 'rounds' }],
    ['an unknown key in budget', () => withChange((d) => (d.budget = { 'max-cost': 3 })), '/budget', 'additionalProperties', { additionalProperty: 'max-cost' }],
    ['two kind keys', () => withChange((d) => (d.steps[1].ask = { questions: ['q'] })), '/steps/1/ask', 'false schema'],
    ['no kind key', () => withChange((d) => d.steps.push({ id: 'nothing', name: 'Nothing' })), '/steps/2', 'not'],
    ['a step id starting with a digit', () => withChange((d) => (d.steps[1].id = '2build')), '/steps/1/id', 'pattern'],
    ['a step id with a dot', () => withChange((d) => (d.steps[1].id = 'build.all')), '/steps/1/id', 'pattern'],
    ['a step without id', () => withChange((d) => delete d.steps[1].id), '/steps/1', 'required', { missingProperty: 'id' }],
    ['the command backend without run', () => withChange((d) => delete d.agents.script.run), '/agents/script', 'required', { missingProperty: 'run' }],
    ['run on a non-command backend', () => withChange((d) => (d.agents.coder.run = ['x'])), '/agents/coder/run', 'false schema'],
    ['an unknown backend', () => withChange((d) => (d.agents.coder.uses = 'claude')), '/agents/coder/uses', 'enum'],
    ['an agent without uses', () => withChange((d) => (d.agents.coder = { model: 'x' })), '/agents/coder', 'required', { missingProperty: 'uses' }],
    ['an agent timeout that is not a whole number', () => withChange((d) => (d.agents.coder['timeout-minutes'] = 1.5)), '/agents/coder/timeout-minutes', 'type'],
    ['a choice input without options', () => withChange((d) => (d.inputs.level = { type: 'choice' })), '/inputs/level', 'required', { missingProperty: 'options' }],
    ['options on a string input', () => withChange((d) => (d.inputs.scope.options = ['a'])), '/inputs/scope/options', 'false schema'],
    ['a number input with a string default', () => withChange((d) => (d.inputs.n = { type: 'number', default: 'three' })), '/inputs/n/default', 'type'],
    ['a string input with a boolean default', () => withChange((d) => (d.inputs.scope.default = true)), '/inputs/scope/default', 'type'],
    ['an input name with a space', () => withChange((d) => (d.inputs['my input'] = {})), '/inputs', 'propertyNames'],
    ['an unknown input type', () => withChange((d) => (d.inputs.scope.type = 'int')), '/inputs/scope/type', 'enum'],
    ['negative retries', () => withChange((d) => (d.steps[1].retries = -1)), '/steps/1/retries', 'minimum'],
    ['more than ten retries', () => withChange((d) => (d.steps[1].retries = 11)), '/steps/1/retries', 'maximum'],
    ['a zero step timeout', () => withChange((d) => (d.steps[1]['timeout-minutes'] = 0)), '/steps/1/timeout-minutes', 'exclusiveMinimum'],
    ['an agent step without prompt', () => withChange((d) => delete d.steps[0].prompt), '/steps/0', 'dependentRequired', { missingProperty: 'prompt' }],
    ['a prompt on a run step', () => withChange((d) => (d.steps[1].prompt = 'hi')), '/steps/1/prompt', 'false schema'],
    ['outputs on an ask step', () => withChange((d) => d.steps.push({ id: 'q', ask: { questions: ['x'] }, outputs: {} })), '/steps/2/outputs', 'false schema'],
    ['outputs that are not a schema', () => withChange((d) => (d.steps[0].outputs = 'tasks')), '/steps/0/outputs', 'type'],
    ['max-parallel without for-each', () => withChange((d) => (d.steps[1]['max-parallel'] = 2)), '/steps/1', 'dependentRequired', { missingProperty: 'for-each' }],
    ['for-each that is not an expression', () => withChange((d) => (d.steps[1]['for-each'] = 'steps.plan.outputs.tasks')), '/steps/1/for-each', 'pattern'],
    ['needs listed twice', () => withChange((d) => (d.steps[1].needs = ['plan', 'plan'])), '/steps/1/needs', 'uniqueItems'],
    ['needs that is a string', () => withChange((d) => (d.steps[1].needs = 'plan')), '/steps/1/needs', 'type'],
    ['a step env value that is an object', () => withChange((d) => (d.steps[1].env = { A: { b: 1 } })), '/steps/1/env/A', 'type'],
    ['an agent env value that is a number', () => withChange((d) => (d.agents.coder.env = { A: 1 })), '/agents/coder/env/A', 'type'],
    ['a question list that is a plain string', () => withChange((d) => d.steps.push({ id: 'q', ask: { questions: 'Which one?' } })), '/steps/2/ask/questions', 'pattern'],
    ['an empty question list', () => withChange((d) => d.steps.push({ id: 'q', ask: { questions: [] } })), '/steps/2/ask/questions', 'minItems'],
    ['a review without agent', () => withChange((d) => d.steps.push({ id: 'r', review: { 'max-rounds': 2 } })), '/steps/2/review', 'required', { missingProperty: 'agent' }],
    ['zero review rounds', () => withChange((d) => d.steps.push({ id: 'r', review: { agent: 'coder', 'max-rounds': 0 } })), '/steps/2/review/max-rounds', 'minimum'],
    ['checks without names', () => withChange((d) => d.steps.push({ id: 'c', checks: { fix: 'build' } })), '/steps/2/checks', 'required', { missingProperty: 'names' }],
    ['a checks workflow that is not a file name', () => withChange((d) => d.steps.push({ id: 'c', checks: { names: ['*'], workflow: 'ci' } })), '/steps/2/checks/workflow', 'pattern'],
    ['an approve role that does not exist', () => withChange((d) => d.steps.push({ id: 'a', approve: { roles: ['owner'] } })), '/steps/2/approve/roles/0', 'enum'],
    ['a pull request without title', () => withChange((d) => d.steps.push({ id: 'pr', 'pull-request': { draft: false } })), '/steps/2/pull-request', 'required', { missingProperty: 'title' }],
    ['an unknown role in on.roles', () => withChange((d) => (d.on.roles = ['owner'])), '/on/roles/0', 'enum'],
    ['a command with capitals', () => withChange((d) => (d.on.commands = ['Fix'])), '/on/commands/0', 'pattern'],
    ["one of baton's own commands", () => withChange((d) => (d.on.commands = ['status'])), '/on/commands/0', 'not'],
    ['an empty label', () => withChange((d) => (d.on.labels = [''])), '/on/labels/0', 'minLength'],
    ['a workflow name with capitals', () => withChange((d) => (d.name = 'Demo')), '/name', 'pattern'],
    ['an extends that is a path', () => ({ extends: '../fix-issue.yml' }), '/extends', 'pattern'],
    ['no steps and no extends', () => withChange((d) => delete d.steps), '', 'required', { missingProperty: 'steps' }],
    ['an empty step list', () => withChange((d) => (d.steps = [])), '/steps', 'minItems'],
    ['a zero cost budget', () => withChange((d) => (d.budget = { 'max-cost-usd': 0 })), '/budget/max-cost-usd', 'exclusiveMinimum'],
  ];

  it.each(invalid)('rejects %s', (_what, make, instancePath, keyword, params) => {
    const errors = errorsOf(validate, make());
    expect(errors).toContainEqual(expect.objectContaining({ instancePath, keyword, ...(params ? { params: expect.objectContaining(params) } : {}) }));
  });

  it('reports the common step mistakes with exactly one error each', () => {
    // no kind key
    expect(meaningful(withChange((d) => d.steps.push({ id: 'x' })))).toEqual([
      expect.objectContaining({ instancePath: '/steps/2', keyword: 'not' }),
    ]);
    // two kind keys: reported at the second one
    expect(meaningful(withChange((d) => (d.steps[0].run = 'make')))).toEqual([
      expect.objectContaining({ instancePath: '/steps/0/run', keyword: 'false schema' }),
    ]);
    // agent without prompt
    expect(meaningful(withChange((d) => delete d.steps[0].prompt))).toEqual([
      expect.objectContaining({ instancePath: '/steps/0', keyword: 'dependentRequired' }),
    ]);
    // a key that belongs to another kind
    expect(meaningful(withChange((d) => (d.steps[1].prompt = 'x')))).toEqual([
      expect.objectContaining({ instancePath: '/steps/1/prompt', keyword: 'false schema' }),
    ]);
    // a misspelt kind: the unknown key and the missing kind
    const misspelt = meaningful(withChange((d) => d.steps.push({ id: 'x', agnet: 'coder', prompt: 'p', outputs: {} })));
    expect(misspelt.map((e) => `${e.instancePath} ${e.keyword}`).sort()).toEqual(['/steps/2 additionalProperties', '/steps/2 not']);
  });

  it('reports the command backend without run once (plus the `if` companion)', () => {
    const errors = errorsOf(validate, withChange((d) => delete d.agents.script.run));
    expect(errors.map((e) => e.keyword).sort()).toEqual(['if', 'required']);
  });
});

describe('workflow library against the schema', () => {
  const files = libraryFiles();

  it('holds the workflows the README lists', () => {
    expect(files).toEqual(
      expect.arrayContaining(['fix-issue.yml', 'review-rounds.yml', 'triage.yml', 'write-tests.yml', 'upgrade-dependency.yml', 'local-demo.yml']),
    );
  });

  it.each(files)('%s is valid', (file) => {
    expect(errorsOf(validate, readLibrary(file).doc)).toEqual([]);
  });
});
