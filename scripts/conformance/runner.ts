/**
 * Runs scenarios against one target, one at a time (GitHub counts concurrent requests against
 * its secondary limits), each with its undos run afterwards whatever happened.
 */
import { randomBytes } from 'node:crypto';
import type { Octokit } from '@octokit/rest';
import { Skip, type Outcome, type Role, type Scenario, type ScenarioContext, type Target } from './types.ts';

export async function runScenario(scenario: Scenario, target: Target, log: (line: string) => void = () => {}): Promise<Outcome> {
  return runWith(scenario, target, log, (ctx) => scenario.run(ctx));
}

/** What a run needs declared: its name (for messages), identities and routes. */
export type Needs = Pick<Scenario, 'name' | 'needs' | 'routes'>;

/**
 * Runs `body` with a context for `target` (a scenario's, or the runner probe's), skipped where
 * an identity or a route is missing, its undos run afterwards whatever happened.
 */
export async function runWith<T>(scenario: Needs, target: Target, log: (line: string) => void, body: (ctx: ScenarioContext) => Promise<T>): Promise<T | { skipped: string } | { failed: string }> {
  const lacking = scenario.needs.find((role) => target.identities[role] === undefined);
  if (lacking !== undefined) return { skipped: target.missing[lacking] ?? `no ${lacking} credentials` };
  const unserved = scenario.routes.find((route) => !target.serves(route));
  if (unserved !== undefined) return { skipped: `the ${target.kind} does not serve ${unserved}` };

  const undos: Array<{ what: string; undo: () => Promise<unknown> }> = [];
  const ctx: ScenarioContext = {
    target,
    id: `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`,
    as(role: Role): Octokit {
      if (!scenario.needs.includes(role)) throw new Error(`scenario ${scenario.name} uses ${role} without declaring it in needs`);
      return target.identities[role]!;
    },
    cleanup(what, undo) {
      undos.push({ what, undo });
    },
  };
  let outcome: T | { skipped: string } | { failed: string };
  try {
    outcome = await body(ctx);
  } catch (error) {
    outcome = error instanceof Skip ? { skipped: error.message } : { failed: error instanceof Error ? error.message : String(error) };
  }
  for (const { what, undo } of undos.reverse()) {
    try {
      await undo();
    } catch (error) {
      // A leftover is reported, never hidden: the maintainer removes it by hand.
      log(`cleanup of ${scenario.name} left ${what} behind: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return outcome;
}

export async function runAll(scenarios: Scenario[], target: Target, log?: (line: string) => void): Promise<Map<string, Outcome>> {
  const out = new Map<string, Outcome>();
  for (const scenario of scenarios) out.set(scenario.name, await runScenario(scenario, target, log));
  return out;
}
