// The committed OpenAPI subset matches what the extraction script produces from
// @octokit/openapi, and every served route has an operation in it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSubset, SUBSET_PATH } from '../../scripts/extract-openapi.ts';
import { Router } from './http/router.ts';
import { OPERATIONS } from './openapi/operations.ts';
import { openApi } from './openapi/validator.ts';

describe('OpenAPI subset', () => {
  it('is what scripts/extract-openapi.ts writes', () => {
    const committed = readFileSync(SUBSET_PATH, 'utf8');
    const fresh = renderSubset();
    expect(committed === fresh, 'tests/emulator/openapi/subset.json is stale: run `npx tsx scripts/extract-openapi.ts` and commit it').toBe(true);
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
