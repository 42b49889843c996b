// Contract: what each real CLI answers to `--version` at the pinned version, read the way
// baton reads it — `baton doctor` (pinnedStatus) and the install step of the worker workflow
// `baton init` writes (`<binary> --version | grep -qwF <version>`, which skips the install) —
// and the fake answers the same first line.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import { npmClis } from '../../../scripts/agent-clis/cache.ts';
import { pinnedStatus } from '../../../src/agents/doctor.ts';
import { expectRanOnItsOwn, fakeBinary, realBinary, run, scenario } from './harness.ts';

const LIMIT = 30_000;

// Each test runs the real CLI and then the fake, each up to LIMIT.
describe('--version (real CLI vs fake)', { timeout: 2 * LIMIT + 10_000 }, () => {
  for (const cli of npmClis()) {
    const name = cli.backend.name;
    it(`${name}: the pinned ${cli.version} is recognised by doctor and by the workflow's install step, and the fake answers alike`, async () => {
      const s = await scenario(name);
      try {
        const real = await run(realBinary(name), s, LIMIT, ['--version']);
        expectRanOnItsOwn(real, LIMIT);
        expect(real.code).toBe(0);
        const line = real.stdout.split('\n')[0]!.trim();
        expect(pinnedStatus(cli.version, line)).toBe(`${cli.version} (the version baton is tested with)`);
        // The install step's own check, with the real CLI first on PATH.
        const check = `${cli.backend.binary} --version 2>/dev/null | grep -qwF -- '${cli.version}'`;
        expect(() => execFileSync('bash', ['-c', check], { env: { ...s.env, PATH: `${dirname(cli.bin)}:${s.env.PATH}` }, stdio: 'pipe' })).not.toThrow();

        const fake = await run(fakeBinary(name), s, LIMIT, ['--version']);
        expect(fake.code).toBe(0);
        expect(fake.stdout.split('\n')[0]!.trim()).toBe(line);
      } finally {
        s.cleanup();
      }
    });
  }
});
