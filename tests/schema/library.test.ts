import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { libraryDir, libraryFiles, readLibrary } from './helpers.ts';
import { loadWorkflowFile } from '../../src/manifest/load.ts';

const files = libraryFiles();

describe('workflow library files', () => {
  it.each(files)('%s starts with the $schema line and a header comment', (file) => {
    const lines = readLibrary(file).text.split('\n');
    expect(lines[0]).toBe('# yaml-language-server: $schema=../schema/workflow.schema.json');
    // The header: comment lines up to the first key, saying how to start the workflow.
    const header = lines.slice(1, lines.findIndex((l) => /^[a-z]/.test(l))).join('\n');
    expect(header).toMatch(/^# [a-z-]+: /m);
    expect(header).toMatch(/Start/);
    expect(header).toMatch(/Agents?:/);
  });

  it.each(files)('%s is named after its file', (file) => {
    expect(readLibrary(file).doc.name).toBe(file.replace(/\.ya?ml$/, ''));
  });

  it('uses labels and commands that no other library workflow uses', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const file of files) {
      const on = readLibrary(file).doc.on ?? {};
      for (const word of [...(on.labels ?? []).map((l: string) => `label ${l}`), ...(on.commands ?? []).map((c: string) => `command ${c}`)]) {
        if (owner.has(word)) clashes.push(`${word}: ${owner.get(word)} and ${file}`);
        owner.set(word, file);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('lists every workflow in the README table', () => {
    const readme = readFileSync(join(libraryDir, 'README.md'), 'utf8');
    for (const file of files) expect(readme).toContain(`[\`${file.replace(/\.ya?ml$/, '')}\`](${file})`);
  });
});

describe('local-demo without baton', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  const sh = (script: string, cwd: string, input = '', env: NodeJS.ProcessEnv = {}): string =>
    execFileSync('sh', ['-c', script], { cwd, input, env: { ...process.env, ...env }, encoding: 'utf8' });

  it('runs its steps by hand: scaffold, the stand-in agent, the local checks', () => {
    const { doc } = readLibrary('local-demo.yml');
    const step = (id: string) => doc.steps.find((s: { id: string }) => s.id === id);
    dir = mkdtempSync(join(tmpdir(), 'baton-demo-'));

    sh(step('scaffold').run, dir);
    expect(readFileSync(join(dir, 'NOTES.md'), 'utf8')).toMatch(/^# Notes\n/);

    // The agent's argv carries its whole script: it runs anywhere, with no file of baton's.
    const [program, ...args] = doc.agents.demo.run as string[];
    expect(args[0]).toBe('-c');
    const prompt = step('note').prompt.replace('${{ inputs.note }}', 'Say "hi" \\ twice');
    const outFile = join(dir, 'result.json');
    const printed = execFileSync(program!, args, {
      cwd: dir,
      input: prompt,
      env: { ...process.env, BATON_OUTPUT: outFile },
      encoding: 'utf8',
    });

    const fromFile = JSON.parse(readFileSync(outFile, 'utf8'));
    expect(fromFile).toEqual({ file: 'NOTES.md', notes: 1, summary: 'Added a note to NOTES.md: Say "hi" \\ twice' });
    const block = /```json\n([\s\S]*?)\n```\s*$/.exec(printed);
    expect(JSON.parse(block![1]!)).toEqual(fromFile);
    expect(readFileSync(join(dir, 'NOTES.md'), 'utf8')).toContain('- Say "hi" \\ twice\n');

    for (const command of Object.values(step('verify').checks.local as Record<string, string>)) sh(command, dir);
  });

  it('the stand-in agent copes with a prompt without a Note: line, and with none at all', () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-demo-'));
    const [program, ...args] = readLibrary('local-demo.yml').doc.agents.demo.run as string[];
    const run = (input: string) => execFileSync(program!, args, { cwd: dir, input, encoding: 'utf8', env: { ...process.env, BATON_OUTPUT: '' } });
    expect(run('\n  first line\tof it\nsecond\n')).toContain('"summary":"Added a note to NOTES.md: first line of it"');
    expect(run('')).toContain('"notes":2');
    expect(readFileSync(join(dir, 'NOTES.md'), 'utf8')).toBe('# Notes\n\n- first line\tof it\n- (empty prompt)\n');
  });
});

describe('approve before CI', () => {
  it('fix-issue-gated has a person approve the change before CI runs it, and validates without warnings', () => {
    const r = loadWorkflowFile(join(libraryDir, 'fix-issue-gated.yml'));
    expect(r.diagnostics).toEqual([]);
    const wf = r.loaded!.workflow;
    const ci = wf.steps.find((s) => s.id === 'ci')!;
    expect(ci).toMatchObject({ kind: 'checks', withoutApproval: false, needs: ['approve-ci'] });
    expect(wf.steps.find((s) => s.id === 'approve-ci')).toMatchObject({ kind: 'approve', needs: ['review'] });
  });

  it.each(files)('%s either approves before CI or says it does not (without-approval)', (file) => {
    const r = loadWorkflowFile(join(libraryDir, file));
    expect(r.diagnostics.filter((d) => d.severity === 'warning')).toEqual([]);
  });
});
