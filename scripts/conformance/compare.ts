/**
 * Runs the scenarios where asked and puts the answers side by side: GitHub's (when a repository
 * is given), the emulator's under its default readings, and in emulator-only mode the emulator's
 * under every value of each scenario's reading.
 */
import { DEFAULT_READINGS, READING_VALUES, type Readings } from '../../tests/emulator/readings.ts';
import { runAll, runScenario } from './runner.ts';
import { emulatorTarget } from './targets/emulator.ts';
import type { Outcome, Scenario, Target } from './types.ts';

export type Verdict = 'agree' | 'differ' | 'skipped' | 'unobserved' | 'failed';

export interface ReadingRun {
  /** The value the emulator was started with. */
  value: string;
  outcome: Outcome;
}

export interface Row {
  scenario: string;
  assumption: Scenario['assumption'];
  /** What FIDELITY.md's row says, or the reading's default value. */
  claim: string;
  /** Null when no claim about GitHub is made (emulator-only runs). */
  github: Outcome | null;
  /** Under the default readings. */
  emulator: Outcome;
  /** Emulator-only runs: the emulator under each value of the scenario's reading. */
  readings?: ReadingRun[];
  /** With GitHub: GitHub against the emulator. Emulator-only: the emulator against its claims. */
  verdict: Verdict;
}

export function claimOf(scenario: Scenario): string {
  if ('reading' in scenario.assumption) return DEFAULT_READINGS[scenario.assumption.reading];
  if (scenario.claim === undefined) throw new Error(`scenario ${scenario.name} checks a FIDELITY.md row but states no claim`);
  return scenario.claim;
}

/** The compared part of an answer: the reading value for a reading, the answer for a row. */
function compared(scenario: Scenario, outcome: Outcome): string | undefined {
  if ('skipped' in outcome || 'failed' in outcome) return undefined;
  return 'reading' in scenario.assumption ? outcome.reading : outcome.answer;
}

export function versus(scenario: Scenario, a: Outcome, b: Outcome): Verdict {
  if ('failed' in a || 'failed' in b) return 'failed';
  if ('skipped' in a || 'skipped' in b) return 'skipped';
  const left = compared(scenario, a);
  return left !== undefined && left === compared(scenario, b) ? 'agree' : 'differ';
}

/** GitHub against the emulator; a situation GitHub did not show in this run proves nothing either way. */
function withGitHub(scenario: Scenario, github: Outcome, emulator: Outcome): Verdict {
  if ('unobserved' in github && github.unobserved === true) return 'unobserved';
  return versus(scenario, github, emulator);
}

/** Against its own claims: each reading value observed as the one the emulator was started with. */
function emulatorVerdict(scenario: Scenario, emulator: Outcome, readings: ReadingRun[] | undefined): Verdict {
  const runs = readings ?? [{ value: claimOf(scenario), outcome: emulator }];
  const verdicts = runs.map((run) => versus(scenario, run.outcome, 'reading' in scenario.assumption ? { answer: '', reading: run.value } : { answer: claimOf(scenario) }));
  for (const v of ['failed', 'differ', 'skipped'] as const) if (verdicts.includes(v)) return v;
  return 'agree';
}

/** Full readings (the environment's BATON_EMULATOR_READINGS does not leak in) with one value changed. */
function readingsWith(key: keyof Readings, value: string): Readings {
  return { ...DEFAULT_READINGS, [key]: value } as Readings;
}

async function onEmulator<T>(readings: Readings, use: (target: Target) => Promise<T>): Promise<T> {
  const target = await emulatorTarget(readings);
  try {
    return await use(target);
  } finally {
    await target.close();
  }
}

export async function compare(scenarios: readonly Scenario[], github: Target | null, log: (line: string) => void): Promise<Row[]> {
  const fromGitHub = github === null ? null : await runAll([...scenarios], github, log);
  const fromEmulator = await onEmulator(DEFAULT_READINGS, (target) => runAll([...scenarios], target, log));
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    const emulator = fromEmulator.get(scenario.name)!;
    let readings: ReadingRun[] | undefined;
    if (github === null && 'reading' in scenario.assumption) {
      const key = scenario.assumption.reading;
      readings = [];
      for (const value of READING_VALUES[key]) {
        const outcome = value === DEFAULT_READINGS[key] ? emulator : await onEmulator(readingsWith(key, value), (target) => runScenario(scenario, target, log));
        readings.push({ value, outcome });
      }
    }
    const githubOutcome = fromGitHub?.get(scenario.name) ?? null;
    rows.push({
      scenario: scenario.name,
      assumption: scenario.assumption,
      claim: claimOf(scenario),
      github: githubOutcome,
      emulator,
      ...(readings === undefined ? {} : { readings }),
      verdict: githubOutcome === null ? emulatorVerdict(scenario, emulator, readings) : withGitHub(scenario, githubOutcome, emulator),
    });
  }
  return rows;
}
