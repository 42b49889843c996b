// The one redaction every output of the worker goes through: each secret is hidden plain
// and in each encoding an agent could print it in, whole or split across lines.
import { describe, expect, it } from 'vitest';
import { redactor, secretValues } from '../../src/agents/redact.ts';

const SECRET = 'sk-ant-api03-Zx9/Qw+7_r8~ab??>>';
const hide = redactor([SECRET]);

function b64(s: string): string {
  return Buffer.from(s).toString('base64');
}

describe('redaction', () => {
  it('hides the plain value', () => {
    expect(hide.text(`key=${SECRET}; again ${SECRET}`)).toBe('key=***; again ***');
  });

  it('hides base64 of the secret, at every byte alignment inside a longer encoded string', () => {
    for (const prefix of ['', 'u', 'us', 'user:']) {
      const encoded = b64(`${prefix}${SECRET}`);
      const out = hide.text(`Authorization: Basic ${encoded}`);
      expect(out, prefix).toContain('***');
      // What is left of the encoding no longer decodes to the secret.
      expect(Buffer.from(out.replace('Authorization: Basic ', ''), 'base64').toString('latin1')).not.toContain(SECRET);
      expect(out).not.toContain(b64(SECRET).slice(4, 20));
    }
  });

  it('hides base64url', () => {
    const encoded = Buffer.from(SECRET).toString('base64url');
    expect(encoded).not.toBe(b64(SECRET).replace(/=+$/, ''));
    expect(hide.text(`token=${encoded}`)).toBe('token=***');
  });

  it('hides the URL-encoded form (upper- and lower-case escapes)', () => {
    const url = encodeURIComponent(SECRET);
    expect(url).not.toBe(SECRET);
    expect(hide.text(`https://x.test/?k=${url}`)).toBe('https://x.test/?k=***');
    const lower = url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    expect(lower).not.toBe(url);
    expect(hide.text(`https://x.test/?k=${lower}`)).toBe('https://x.test/?k=***');
  });

  it('hides hex, lower and upper case', () => {
    const hex = Buffer.from(SECRET).toString('hex');
    expect(hide.text(`dump: ${hex}`)).toBe('dump: ***');
    expect(hide.text(`dump: ${hex.toUpperCase()}`)).toBe('dump: ***');
  });

  it('hides a secret split across lines: raw breaks, indentation, `base64 -w`, and \\n escapes inside JSON', () => {
    expect(hide.text(`${SECRET.slice(0, 9)}\n${SECRET.slice(9)}`)).toBe('***');
    expect(hide.text(`${SECRET.slice(0, 5)}\r\n    ${SECRET.slice(5, 15)}\n${SECRET.slice(15)}`)).toBe('***');
    const wrapped = b64(SECRET).replace(/(.{8})/g, '$1\n');
    expect(hide.text(wrapped)).not.toContain(b64(SECRET).slice(8, 16));
    const json = JSON.stringify({ output: `${SECRET.slice(0, 10)}\n${SECRET.slice(10)}` });
    expect(hide.text(json)).toBe('{"output":"***"}');
  });

  it('hides every string of a JSON value, keys too, and leaves other values alone', () => {
    expect(hide.json({ summary: `leaked ${SECRET}`, [SECRET]: [1, true, null, { deep: b64(SECRET) }] })).toEqual({ summary: 'leaked ***', '***': [1, true, null, { deep: '***' }] });
  });

  it('hides secrets in file bytes, keeping every other byte', () => {
    const content = new Uint8Array([0xff, 0x00, ...Buffer.from(`a=${SECRET}\n`), 0x80]);
    const out = hide.bytes(content);
    expect([...out]).toEqual([0xff, 0x00, ...Buffer.from('a=***\n'), 0x80]);
    const clean = new Uint8Array([1, 2, 3]);
    expect(hide.bytes(clean)).toBe(clean);
  });

  it('hides a multi-line secret (a PEM key) however it is wrapped', () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n';
    const h = redactor([pem]);
    expect(h.text(`key: ${pem.replace(/\n/g, '\\n')}`)).toBe('key: ***\\n');
    expect(h.text(pem.replace(/\n/g, ' '))).toBe('*** ');
  });

  it('leaves ordinary text alone, and ignores values too short to hide safely', () => {
    expect(hide.text('nothing to see here: sk-ant, api03, Zx9')).toBe('nothing to see here: sk-ant, api03, Zx9');
    expect(redactor(['short']).text('a short word')).toBe('a short word');
  });

  it('takes the secrets of the job: backend credentials and anything named like a secret', () => {
    const env = {
      ANTHROPIC_API_KEY: 'sk-ant-0123456789',
      INPUT_TOKEN: 'ghs_0123456789',
      'INPUT_STATE-SECRET': 'state-0123456789',
      ACTIONS_RUNTIME_TOKEN: 'rt-0123456789',
      ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-0123456789',
      DEPLOY_KEY: 'deploy-0123456789',
      GH_PAT: 'pat-0123456789',
      PATH: '/usr/bin:/bin:/usr/local/bin',
      GITHUB_WORKSPACE: '/home/runner/work/x',
      SHORT_TOKEN: 'abc',
    };
    expect(secretValues(env).sort()).toEqual(['deploy-0123456789', 'ghs_0123456789', 'oidc-0123456789', 'pat-0123456789', 'rt-0123456789', 'sk-ant-0123456789', 'state-0123456789']);
  });
});
