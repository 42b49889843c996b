// The login files handed to a fenced agent's home (src/agents/sandbox/login-files.ts): the
// paths are baton's own, and one that could leave HOME stops the attempt before it opens.
// The hand-over itself, as the agent's user, is tested in worker-sandbox.test.ts.
import { describe, expect, it } from 'vitest';
import { BACKEND_IMPLS } from '../../../src/agents/backends/index.ts';
import { openAttemptSandbox } from '../../../src/agents/sandbox/attempt.ts';
import { checkLoginFilePath } from '../../../src/agents/sandbox/login-files.ts';

describe("the login files handed to the agent's home", () => {
  it("every backend's login files are paths inside HOME", () => {
    for (const backend of Object.values(BACKEND_IMPLS)) for (const file of backend.loginFiles) expect(() => checkLoginFilePath(file)).not.toThrow();
  });

  it('a login path that is absolute or climbs out of HOME is refused before the attempt opens', async () => {
    for (const bad of ['../.ssh/id_rsa', '.claude/../../x', '/etc/shadow', '', '.claude//x']) expect(() => checkLoginFilePath(bad)).toThrow(/a backend's login file must be a path inside HOME/);
    const request = { network: { mode: 'off' as const, allow: [] }, limits: { cpuSeconds: null, memoryMb: null, processes: null }, required: false };
    await expect(openAttemptSandbox({ request, agent: null, workerEnv: {}, local: true, loginFiles: ['../.ssh/id_rsa'] })).rejects.toThrow(/"\.\.\/\.ssh\/id_rsa"/);
  });
});
