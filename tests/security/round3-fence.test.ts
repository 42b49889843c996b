// Round 3, attack 9: the internal-address check was a list of spellings. An allowed name whose
// DNS answer is the metadata endpoint spelled as NAT64 (64:ff9b::a9fe:a9fe), IPv4-translated
// (::ffff:0:a9fe:a9fe) or 6to4, or Alibaba's metadata address in shared space (100.100.100.200),
// got through. The proxy runs in a network namespace with nothing but loopback
// (round3-fence-scenario.ts), so a proxy that tried would reach nothing. The fence's side of
// attacks 9 and 10 (loopback ports, immediate refusals, an honest report, limits that name
// themselves) needs the fence's namespaces: tests/agents/sandbox/fence.test.ts and
// worker-sandbox.test.ts.
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInNamespace } from '../agents/sandbox/namespace.ts';

const SCENARIO = fileURLToPath(new URL('./round3-fence-scenario.ts', import.meta.url));

describe('round 3, attack 9: an allowed name answering with an internal address in another spelling', () => {
  let answers: Record<string, string>;
  beforeAll(() => {
    answers = JSON.parse(runInNamespace('spellings', SCENARIO)) as Record<string, string>;
  }, 120_000);

  it('the proxy connects the name to none of them (NAT64, IPv4-translated, 6to4, shared address space)', () => {
    expect(Object.keys(answers)).toHaveLength(7);
    for (const [spelling, answer] of Object.entries(answers)) expect(answer, spelling).toMatch(/resolves only to .*which the proxy does not connect a name to/);
  });
});
