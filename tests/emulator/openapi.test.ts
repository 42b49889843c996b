// The committed OpenAPI subset is whole: every served route has an operation in it, it holds
// nothing else, and every reference in it resolves. Whether it is still what GitHub's published
// description gives is checked by `npx tsx scripts/extract-openapi.ts --check`, which fetches
// that description (too big to install with the checkout).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUBSET_PATH } from '../../scripts/extract-openapi.ts';
import { Router } from './http/router.ts';
import { OPERATIONS } from './openapi/operations.ts';
import { openApi } from './openapi/validator.ts';

describe('OpenAPI subset', () => {
  it('holds exactly the listed operations, and every $ref in it resolves (else run `npx tsx scripts/extract-openapi.ts`)', () => {
    const text = readFileSync(SUBSET_PATH, 'utf8');
    const subset = JSON.parse(text) as { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> };
    const held = Object.entries(subset.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
    expect(held.sort()).toEqual([...OPERATIONS].sort());
    const dangling = [...text.matchAll(/"\$ref": "#\/components\/([^/"]+)\/([^/"]+)"/g)].filter(([, kind, name]) => subset.components[kind!]?.[name!] === undefined).map(([ref]) => ref);
    expect(dangling).toEqual([]);
  });

  it('has an operation for every listed route', () => {
    const api = openApi();
    for (const key of OPERATIONS) expect(api.operations.has(key), key).toBe(true);
  });

  it('accepts nullable fields as null and rejects wrong types', () => {
    const api = openApi();
    const label = api.operations.get('GET /repos/{owner}/{repo}/labels/{name}')!.responses.get('200')!;
    const valid = { id: 1, node_id: 'x', url: 'http://h/l', name: 'bug', description: null, color: 'ffffff', default: false };
    expect(api.validate(label, valid)).toBeNull();
    expect(api.validate(label, { ...valid, description: 3 })).not.toBeNull();
  });
});

describe('router', () => {
  it('matches templates, multi-segment refs and the most specific route first', () => {
    const router = new Router();
    const ok = () => ({ status: 200 });
    router.add('GET', '/repos/{owner}/{repo}/commits/{ref}', ok);
    router.add('GET', '/repos/{owner}/{repo}/commits/{ref}/status', ok);
    router.add('GET', '/repos/{owner}/{repo}/git/ref/{ref}', ok);
    const status = router.match('GET', '/repos/a/b/commits/heads%2Fmain/status');
    expect(status).toMatchObject({ route: { template: '/repos/{owner}/{repo}/commits/{ref}/status' }, params: { ref: 'heads/main' } });
    expect(router.match('GET', '/repos/a/b/git/ref/heads/baton/run-1')).toMatchObject({ params: { ref: 'heads/baton/run-1' } });
    expect(router.match('POST', '/repos/a/b/git/ref/heads/x')).toEqual({ allow: ['GET'] });
  });

  it('refuses routes the subset does not describe', () => {
    const router = new Router(OPERATIONS);
    expect(() => router.add('GET', '/repos/{owner}/{repo}/nope', () => ({ status: 200 }))).toThrow(/operations\.ts/);
  });
});
