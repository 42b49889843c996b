/**
 * The conformance kit's vocabulary. A scenario asks one question about GitHub's behaviour with
 * real API calls and answers in a normalized form, so that GitHub's answer and the emulator's
 * can be compared as strings; a target is where it asks (GitHub, or an emulator in-process).
 */
import type { Octokit } from '@octokit/rest';
import type { Readings } from '../../tests/emulator/readings.ts';

/** The identities a scenario may act as; each target has some of them. */
export interface Identities {
  /** Any token that may write the repository's contents, issues and refs (the App's, else GITHUB_TOKEN). */
  actor: Octokit;
  /** baton's App installation: app.yml's permissions, no `workflows`. */
  app: Octokit;
  /** The App itself (its JWT): `/app/...` endpoints. */
  appJwt: Octokit;
  /** A person who may write workflow files and the default branch (a token with the workflow scope). */
  maintainer: Octokit;
}
export type Role = keyof Identities;

/** What a scenario checks: a row of tests/emulator/FIDELITY.md (its "behaviour" cell) or a reading's key. */
export type Assumption = { row: string } | { reading: keyof Readings };

export interface Target {
  kind: 'github' | 'emulator';
  owner: string;
  repo: string;
  /** Why a role is missing, per role this target lacks. */
  identities: Partial<Identities>;
  missing: Partial<Record<Role, string>>;
  /** The installation's permissions, when `app` is present. */
  appPermissions: Record<string, string>;
  /** Whether the target serves `METHOD /path-template` at all (the emulator serves a subset). */
  serves(route: string): boolean;
  /** Secondary rate limits met by any call of the run (never provoked: see scenarios/rate-limits.ts). */
  limitsMet: LimitMet[];
  /** The readings an emulator target was started with; undefined for GitHub. */
  readings?: Readings;
  /**
   * Lets GitHub Actions move on between two looks at a run: the emulator waits until its runner
   * is idle and answers true (nothing more happens on its own, so the next look is final);
   * GitHub waits one poll interval and answers false.
   */
  settle(): Promise<boolean>;
  /**
   * Opens a pull request against the repository from a fork whose branch `branch` is the
   * commit `sha` (which the repository has); returns its number. The emulator does it itself
   * (tests/emulator/forks.ts); on GitHub it needs a second account with a fork, which the kit
   * does not hold, so it is absent there and scenarios that need it are skipped.
   */
  /**
   * baton's App installed on a second account, and a repository there its token may write:
   * whether a limit met through one installation holds for another (ISSUE U4). The emulator
   * makes one when first asked; on GitHub the kit holds one installation, so it is absent there.
   */
  secondInstallation?(): Promise<{ octokit: Octokit; owner: string; repo: string }>;
  openForkPullRequest?(o: { branch: string; sha: string; base: string; title: string }): Promise<number>;
  close(): Promise<void>;
}

export interface LimitMet {
  status: number;
  message: string;
  retryAfter: string | null;
  remaining: string | null;
}

/** A scenario's normalized answer: `answer` is compared; `reading` is the reading value it matched, if any. */
export interface Observation {
  answer: string;
  reading?: string;
  /** The situation did not arise (a limit not met): GitHub's answer then proves nothing. */
  unobserved?: boolean;
  /** Facts seen on the way, shown but not compared. */
  detail?: string;
}

export interface ScenarioContext {
  target: Target;
  /** The identities the scenario declared in `needs` (the runner checked they exist). */
  as(role: Role): Octokit;
  /** A short id unique to this run, for names of refs, branches and files. */
  id: string;
  /** Registers an undo; undos run last-first after the scenario, also when it failed. */
  cleanup(what: string, undo: () => Promise<unknown>): void;
}

export interface Scenario {
  name: string;
  assumption: Assumption;
  /** For a FIDELITY.md row: the answer the row (and so the emulator) gives, in this scenario's normalized form. */
  claim?: string;
  needs: Role[];
  /** Every route the scenario calls; a target that does not serve one skips the scenario. */
  routes: string[];
  /** Roughly how many requests one run makes (docs/conformance.md sums them). */
  requests: number;
  run(ctx: ScenarioContext): Promise<Observation>;
}

/** Thrown by a scenario that cannot ask its question here; reported as "skipped: why", not failed. */
export class Skip extends Error {}

export type Outcome = { skipped: string } | { failed: string } | Observation;
