// An agent reads its CLI's login file (`claude login` keeps ~/.claude/.credentials.json; it is
// the worker's user unfenced, and the sandbox hands the file to its home when fenced) and copies
// the token into an output, which would reach the public status comment. The token is a secret
// of the job like an API key: the worker's door withholds the result.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runWorker } from '../../src/agents/worker.ts';
import { secretsInLoginFile } from '../../src/agents/login-secrets.ts';
import { backendScenario } from '../agents/helpers.ts';

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

const TOKEN = 'sk-ant-oat01-login-file-token-5d1f9a';

describe("the tokens of an agent CLI's login file are secrets of the job", () => {
  /** claude-code with a stored login holding TOKEN; its fake prints `summary` as the step's output. */
  async function withLogin(summary: string) {
    const { repo, f, task } = backendScenario('claude-code', {}, cleanup);
    mkdirSync(join(f.env.HOME!, '.claude'), { recursive: true });
    writeFileSync(join(f.env.HOME!, '.claude', '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: TOKEN, refreshToken: `${TOKEN}-r`, expiresAt: 1 } }));
    f.script([{ output: { summary }, reply: 'Done.' }]);
    return runWorker({ ...task, outputsSchema: { type: 'object' } }, { cwd: repo.dir, env: f.env });
  }

  it('the token copied into an output is masked like an API key, and goes nowhere', async () => {
    const run = await withLogin(`the login says ${TOKEN}`);
    expect(run.result.outputs).toEqual({ summary: 'the login says ***' });
    expect(JSON.stringify(run)).not.toContain(TOKEN);
  });

  it('the token reversed in an output fails the attempt at the door, and goes nowhere', async () => {
    const run = await withLogin(`the login says ${[...TOKEN].reverse().join('')}`);
    expect(run.result.status).toBe('refused');
    expect(run.result.error).toMatch(/carried a secret of the job/);
    expect(JSON.stringify(run)).not.toContain([...TOKEN].reverse().join(''));
  });

  it('reads the credential values of JSON and YAML login files, not their other fields', () => {
    expect(secretsInLoginFile(JSON.stringify({ claudeAiOauth: { accessToken: TOKEN, expiresAt: 1700000000000, scopes: ['user:inference'] } }))).toEqual([TOKEN]);
    expect(secretsInLoginFile(JSON.stringify({ OPENAI_API_KEY: null, tokens: { id_token: 'eyJhbGciOi.id', access_token: 'eyJhbGciOi.access', account_id: 'acct-1' } })).sort()).toEqual(['eyJhbGciOi.access', 'eyJhbGciOi.id']);
    expect(secretsInLoginFile('github.com:\n    oauth_token: gho_0123456789abcdef\n    user: octocat\n    git_protocol: https\n')).toEqual(['gho_0123456789abcdef']);
  });
});
