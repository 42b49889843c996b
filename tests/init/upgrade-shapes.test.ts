// Upgrades never stop a workflow silently: a repository set up by any earlier baton is brought
// to this one by `baton update` alone. Every shape of the files `baton init` wrote over this
// repository's history (tests/fixtures/init-shapes/, each with the commit it came from) is
// updated in both modes with every library workflow that commit had: the command succeeds
// with no conflict and no manual edit, and leaves exactly what this baton's `init` writes for
// the same choices: the files the library's end-to-end tests run green on the emulator
// (tests/app/library-*.test.ts, tests/actions-only/triggers.test.ts). tests/app/upgrade.test.ts
// follows one shape on the emulator through the refusal, the update and green runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { FILES_VERSION_VAR, ownStamp } from '../../src/compat.ts';
import { INIT_BASE_FILE } from '../../src/init/base.ts';
import { libraryWorkflows } from '../../src/init/library.ts';
import { initShapes, removeRepos, writeRepo } from './init-shapes.ts';

afterAll(removeRepos);

async function baton(cwd: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (t) => out.push(t), err: (t) => err.push(t), cwd });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function filesIn(d: string, paths: string[]): Record<string, string> {
  return Object.fromEntries(paths.filter((p) => existsSync(join(d, p))).map((p) => [p, readFileSync(join(d, p), 'utf8')]));
}

const shapes = initShapes();

describe('baton update from every shape baton init has written', () => {
  it('has the shapes of both modes, from the first baton with `baton update` on', () => {
    expect(shapes.filter((s) => s.mode === 'app').length).toBeGreaterThan(3);
    expect(shapes.filter((s) => s.mode === 'actions').length).toBeGreaterThan(3);
    for (const s of shapes) expect(s.files[INIT_BASE_FILE], s.name).toBeDefined();
  });

  it.each(shapes.map((s) => [s.name, s] as const))('%s: updated with no conflict and no edit, to what this baton writes', async (_name, shape) => {
    const d = writeRepo(shape.files);
    // Before: `baton doctor` says the worker workflow's workers would be refused, and what to run.
    const unstamped = !shape.files['.github/workflows/baton-worker.yml']!.includes(FILES_VERSION_VAR);
    if (unstamped) expect((await baton(d, ['doctor'])).out).toContain(`warning: .github/workflows/baton-worker.yml was written by a baton that did not stamp its files (0.1.0 or earlier); baton ${ownStamp().version} refuses its workers`);
    const r = await baton(d, ['update']);
    expect(r.code, `${r.out}\n${r.err}`).toBe(0);
    expect(r.out).not.toContain('conflict');

    const library = new Set(libraryWorkflows().map((w) => w.name));
    const workflows = (JSON.parse(shape.files[INIT_BASE_FILE]!) as { workflows: string[] }).workflows.filter((w) => library.has(w));
    const fresh = writeRepo({});
    expect((await baton(fresh, ['init', '--mode', shape.mode, '--workflows', workflows.join(',')])).code).toBe(0);
    const written = readdirSync(fresh, { recursive: true }).map(String).filter((p) => statSync(join(fresh, p)).isFile());
    expect(filesIn(d, written)).toEqual(filesIn(fresh, written));
    // Nothing init no longer writes is left behind as baton's (a workflow gone from the library would be named).
    for (const path of Object.keys(shape.files)) if (!written.includes(path)) expect(r.err).toContain(path);
    expect(readFileSync(join(d, '.github/workflows/baton-worker.yml'), 'utf8')).toContain(`${FILES_VERSION_VAR}: "${ownStamp().version}"`);
    expect((await baton(d, ['doctor'])).out).not.toContain('baton-worker.yml was written by');
  });
});
