// The key that signs baton's state blocks: never absent. BATON_STATE_SECRET when set, else
// derived from the App's private key; an App with neither refuses to start.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MissingStateKeyError, resolveStateSecret, stateKeyFromPrivateKey } from '../../src/app/state-key.ts';

const pem = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;

describe('the state key', () => {
  it('is BATON_STATE_SECRET when set, else derived from the App private key Probot reads', () => {
    expect(resolveStateSecret({}, { BATON_STATE_SECRET: 's3cret', PRIVATE_KEY: pem })).toBe('s3cret');
    const derived = resolveStateSecret({}, { PRIVATE_KEY: pem });
    expect(derived).toMatch(/^[0-9a-f]{64}$/);
    expect(derived).toBe(stateKeyFromPrivateKey(pem));
    expect(resolveStateSecret({ privateKey: pem }, {})).toBe(derived);
    expect(derived).not.toContain(pem.slice(40, 80));
  });

  it('refuses to be absent, saying what to set', () => {
    expect(() => resolveStateSecret({}, {})).toThrow(MissingStateKeyError);
    expect(() => resolveStateSecret({}, {})).toThrow(/BATON_STATE_SECRET.*PRIVATE_KEY/);
  });
});
