import { describe, expect, it } from 'vitest';
import { parseCommandFile } from './command-files.ts';
import { ConcurrencyGroups } from './concurrency.ts';
import { DispatchError, resolveInputs } from './dispatch.ts';
import { condition, template } from './expressions.ts';
import { tokenPermissions } from './permissions.ts';
import { createdMatches } from './routes.ts';
import { actionDirectory, parseUses } from './steps/index.ts';
import { parseWorkflowFile } from './workflow-file.ts';

describe('workflow files', () => {
  it('reads dispatch inputs, jobs, needs, permissions and concurrency', () => {
    const wf = parseWorkflowFile(
      '.github/workflows/w.yml',
      `
name: worker
run-name: "baton \${{ inputs.run }}"
on:
  workflow_dispatch:
    inputs:
      run: { required: true }
      dry: { type: boolean, default: false }
permissions: { contents: read }
concurrency: { group: "g-\${{ inputs.run }}", cancel-in-progress: true }
jobs:
  a:
    runs-on: ubuntu-latest
    outputs: { x: "\${{ steps.s.outputs.x }}" }
    steps:
      - id: s
        run: echo x=1 >> "$GITHUB_OUTPUT"
  b:
    needs: a
    runs-on: ubuntu-latest
    permissions: { contents: write, pull-requests: write }
    steps:
      - uses: actions/checkout@v5
        with: { fetch-depth: 0 }
`,
    );
    expect(wf.name).toBe('worker');
    expect(wf.dispatchInputs).toEqual({ run: { required: true, type: 'string' }, dry: { required: false, type: 'boolean', default: false } });
    expect(wf.jobs.map((j) => [j.id, j.needs])).toEqual([['a', []], ['b', ['a']]]);
    expect(wf.concurrency).toEqual({ group: 'g-${{ inputs.run }}', cancelInProgress: true });
    expect(wf.jobs[1]!.steps[0]!.with).toEqual({ 'fetch-depth': 0 });
  });

  it('accepts `on` as a string or a list', () => {
    expect(parseWorkflowFile('p', 'on: workflow_dispatch\njobs: { a: { runs-on: x, steps: [ { run: "true" } ] } }').dispatchInputs).toEqual({});
    expect(parseWorkflowFile('p', 'on: [push]\njobs: { a: { runs-on: x, steps: [ { run: "true" } ] } }').dispatchInputs).toBeUndefined();
  });

  it('refuses what GitHub refuses', () => {
    const bad = (jobs: string) => () => parseWorkflowFile('p.yml', `on: workflow_dispatch\njobs:\n${jobs}`);
    expect(bad('  a: { runs-on: x, needs: [b], steps: [ { run: "true" } ] }')).toThrow(/unknown job 'b'/);
    expect(bad('  a: { runs-on: x, needs: [b], steps: [ { run: "true" } ] }\n  b: { runs-on: x, needs: [a], steps: [ { run: "true" } ] }')).toThrow(/cycle/);
    expect(bad('  a: { runs-on: x, steps: [ { run: "true", uses: "x/y@v1" } ] }')).toThrow(/exactly one of/);
    expect(bad('  a: { runs-on: x, permissions: { contents: admin }, steps: [ { run: "true" } ] }')).toThrow(/read, write or none/);
    expect(() => parseWorkflowFile('p.yml', 'on: [\n')).toThrow(/YAML syntax error/);
  });

  it('keeps unsupported job features for the runner to refuse by name', () => {
    const wf = parseWorkflowFile('p', 'on: workflow_dispatch\njobs: { a: { runs-on: x, container: node:20, steps: [ { run: "true" } ] } }');
    expect(wf.jobs[0]!.unsupported).toEqual(['container']);
  });
});

describe('expressions', () => {
  const ctx = { inputs: { n: 3, s: 'hi', flag: false }, steps: { a: { outputs: { x: 'y' } } }, github: { ref: 'refs/heads/main' } };
  const ok = { failed: false, cancelled: false };

  it('keeps a whole expression typed and interpolates text', () => {
    expect(template('${{ inputs.n }}', ctx)).toBe(3);
    expect(template('n=${{ inputs.n }} ${{ steps.a.outputs.x }}', ctx)).toBe('n=3 y');
    expect(template("${{ format('{0}-{1}', inputs.s, github.ref) }}", ctx)).toBe('hi-refs/heads/main');
    expect(template('${{ toJSON(inputs.flag) }}', ctx)).toBe('false');
    expect(template(5, ctx)).toBe(5);
  });

  it('puts an implicit success() in front of conditions without a status function', () => {
    expect(condition(undefined, ctx, ok)).toBe(true);
    expect(condition(undefined, ctx, { failed: true, cancelled: false })).toBe(false);
    expect(condition("inputs.s == 'hi'", ctx, { failed: true, cancelled: false })).toBe(false);
    expect(condition("${{ inputs.s == 'hi' }}", ctx, ok)).toBe(true);
    expect(condition('failure()', ctx, { failed: true, cancelled: false })).toBe(true);
    expect(condition('always()', ctx, { failed: true, cancelled: true })).toBe(true);
    expect(condition('cancelled()', ctx, { failed: false, cancelled: true })).toBe(true);
    expect(condition("success() || inputs.s == 'hi'", ctx, { failed: true, cancelled: false })).toBe(true);
    expect(condition('success()', ctx, { failed: false, cancelled: false, blocked: true })).toBe(false);
  });

  it('reports unknown contexts and bad syntax', () => {
    expect(() => template('${{ nope.x }}', ctx)).toThrow(/nope/);
    expect(() => template('${{ inputs.n ==  }}', ctx)).toThrow(/cannot parse/);
    expect(() => template('${{ inputs.n', ctx)).toThrow(/never closed/);
  });
});

describe('command files', () => {
  it('reads name=value and name<<DELIMITER blocks', () => {
    const text = 'a=1\nb=x=y\nmulti<<EOF\nline 1\nline=2\nEOF\r\nempty=\nc<<X\nX\n';
    expect(parseCommandFile(text, 'GITHUB_OUTPUT')).toEqual({ a: '1', b: 'x=y', multi: 'line 1\nline=2', empty: '', c: '' });
  });

  it('fails on an unterminated block or a bare line', () => {
    expect(() => parseCommandFile('x<<EOF\nno end\n', 'GITHUB_OUTPUT')).toThrow(/delimiter 'EOF'/);
    expect(() => parseCommandFile('justtext\n', 'GITHUB_ENV')).toThrow(/neither/);
  });
});

describe('dispatch inputs', () => {
  const declared = {
    run: { required: true, type: 'string' as const },
    dry: { required: false, type: 'boolean' as const, default: false },
    size: { required: false, type: 'choice' as const, options: ['s', 'm'], default: 's' },
  };

  it('fills defaults and types the inputs context', () => {
    expect(resolveInputs(declared, { run: 'r1', dry: 'true' })).toEqual({
      context: { run: 'r1', dry: true, size: 's' },
      event: { run: 'r1', dry: 'true', size: 's' },
    });
  });

  it('answers 422 like GitHub for unknown, missing or invalid inputs', () => {
    const err = (given: Record<string, unknown>) => {
      try {
        resolveInputs(declared, given);
      } catch (e) {
        return e instanceof DispatchError ? `${e.status} ${e.message}` : String(e);
      }
      return 'no error';
    };
    expect(err({ run: 'x', nope: '1' })).toBe('422 Unexpected inputs provided: ["nope"]');
    expect(err({})).toBe("422 Required input 'run' not provided");
    expect(err({ run: 'x', dry: 'maybe' })).toMatch(/^422 .*not a valid boolean/);
    expect(err({ run: 'x', size: 'xl' })).toMatch(/^422 .*not in the list of allowed values/);
    // 65,535 characters for all inputs together, not per input.
    expect(err({ run: 'x'.repeat(65_000), size: 's' })).toBe('no error');
    expect(err({ run: 'x'.repeat(65_535) })).toMatch(/^422 inputs are too large/);
  });

  it('refuses a workflow that declares more than 25 inputs', () => {
    const inputs = (n: number) => Array.from({ length: n }, (_, i) => `      i${i}: { type: string }`).join('\n');
    const wf = (n: number) => `on:\n  workflow_dispatch:\n    inputs:\n${inputs(n)}\njobs: { a: { runs-on: x, steps: [ { run: "true" } ] } }`;
    expect(Object.keys(parseWorkflowFile('p.yml', wf(25)).dispatchInputs!)).toHaveLength(25);
    expect(() => parseWorkflowFile('p.yml', wf(26))).toThrow(/you may only define up to 25 `inputs` for a `workflow_dispatch` event/);
  });
});

describe('token permissions', () => {
  it('never include `workflows`: a job cannot ask for it, and write-all does not grant it', () => {
    // "permissions: workflows: write" is invalid syntax (stefanzweifel/git-auto-commit-action#322).
    expect(() => parseWorkflowFile('p.yml', 'on: push\npermissions: { workflows: write }\njobs: { a: { runs-on: x, steps: [ { run: "true" } ] } }')).toThrow(/workflows is not a permission scope/);
    expect(tokenPermissions('write-all', undefined).workflows).toBeUndefined();
  });

  it('follows GitHub: the restricted default, named scopes only, metadata always', () => {
    expect(tokenPermissions(undefined, undefined)).toEqual({ metadata: 'read', contents: 'read', packages: 'read' });
    expect(tokenPermissions({ contents: 'write', 'pull-requests': 'write', 'id-token': 'write' }, { contents: 'read' })).toEqual({
      metadata: 'read',
      contents: 'write',
      pull_requests: 'write',
    });
    expect(tokenPermissions(undefined, {})).toEqual({ metadata: 'read' });
    expect(tokenPermissions('read-all', undefined).issues).toBe('read');
  });
});

describe('uses:', () => {
  it('parses references and maps local actions', () => {
    expect(parseUses('actions/checkout@v5')).toEqual({ repo: 'actions/checkout', path: '', ref: 'v5' });
    expect(parseUses('acme/baton/sub/dir@main')).toEqual({ repo: 'acme/baton', path: 'sub/dir', ref: 'main' });
    const map = { 'acme/baton': '/opt/baton', 'acme/other@v2': '/opt/other2' };
    expect(actionDirectory('acme/baton@v1', '/ws', map)).toBe('/opt/baton');
    expect(actionDirectory('acme/baton/sub@v1', '/ws', map)).toBe('/opt/baton/sub');
    expect(actionDirectory('acme/other@v2', '/ws', map)).toBe('/opt/other2');
    expect(actionDirectory('acme/other@v3', '/ws', map)).toBeUndefined();
    expect(actionDirectory('./', '/ws', map)).toBe('/ws');
  });
});

describe('concurrency groups', () => {
  it('keeps one running and one pending; a newcomer replaces the pending one', async () => {
    const groups = new ConcurrencyGroups();
    const cancelled: string[] = [];
    const member = (name: string) => ({ cancel: () => cancelled.push(name) });
    const a = member('a');
    const b = member('b');
    const c = member('c');
    expect(await groups.acquire('g', a, false)).toBe(true);
    const bTurn = groups.acquire('g', b, false);
    const cTurn = groups.acquire('g', c, false);
    expect(await bTurn).toBe(false);
    groups.release('g', a);
    expect(await cTurn).toBe(true);
    const d = member('d');
    const dTurn = groups.acquire('g', d, true);
    expect(cancelled).toEqual(['c']);
    groups.release('g', c);
    expect(await dTurn).toBe(true);
  });
});

describe('created filter', () => {
  it('reads GitHub date ranges', () => {
    const at = '2024-05-01T10:00:00.000Z';
    expect(createdMatches('2024-05-01', at)).toBe(true);
    expect(createdMatches('2024-05-02', at)).toBe(false);
    expect(createdMatches('>=2024-05-01T09:00:00Z', at)).toBe(true);
    expect(createdMatches('>2024-05-01', at)).toBe(false);
    expect(createdMatches('<=2024-05-01', at)).toBe(true);
    expect(createdMatches('<2024-05-01T10:00:00Z', at)).toBe(false);
    expect(createdMatches('2024-04-30..2024-05-01', at)).toBe(true);
    expect(createdMatches('nonsense', at)).toBe(false);
  });
});
