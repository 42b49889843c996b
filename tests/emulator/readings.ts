/**
 * Where GitHub's documentation is silent, the emulator does not guess once: each unknown is a
 * switch with one value per plausible behaviour, and baton must be correct under every value
 * (FIDELITY.md, "Unknown — each reading tested"). A test picks a reading with
 * `startEmulator({ readings: { … } })`, or for the whole process with the environment variable
 * `BATON_EMULATOR_READINGS` (JSON, e.g. `{"refUpdateWorkflows":"default-branch"}`), which is how
 * the end-to-end suites are run under each reading. The defaults are the stricter or the more
 * commonly reported reading; `conformance` (scripts/conformance) asks GitHub which one holds.
 */
export interface Readings {
  /**
   * A ref update (`PATCH git/refs`) onto a commit whose `.github/workflows/` differs — compared
   * with what? `old-value`: with the ref's current commit (a move that touches no workflow file
   * passes); `default-branch`: with the default branch's current tip, as for a new ref (reports
   * lean this way: kaeawc/android-build#428), so a branch made before main changed its workflows
   * cannot move at all until it carries main's workflow files. Every write that moves a ref takes
   * it: `PATCH git/refs`, the merges API, the contents API.
   */
  refUpdateWorkflows: 'old-value' | 'default-branch';
  /**
   * What the loser of a race to create the same ref gets: `already-exists` (422 "Reference
   * already exists", as for a ref that existed before the request) or `update-failed` (422
   * "Reference update failed", the answer also seen intermittently with valid data:
   * github/rest-api-description#4887).
   */
  refCreateRace: 'already-exists' | 'update-failed';
  /**
   * Where the REST API refuses a workflow-file change to a token without `workflows`: `trees`
   * (403 "Resource not accessible by integration" at `POST git/trees`:
   * anthropics/claude-code-action#29), `commits` (404 "Not Found" at `POST git/commits`:
   * octokit/rest.js#368) or `ref` (422 at the ref write, the tree and commit accepted).
   */
  workflowRefusalAt: 'trees' | 'commits' | 'ref';
  /**
   * What a `pull_request` event (`opened`, `synchronize`, `reopened`) caused by a job's
   * GITHUB_TOKEN starts. `action-required`: GitHub's "GITHUB_TOKEN" page as quoted in 2026
   * (web-platform-tests/wpt#60613, github/docs#44419): the workflow runs are created waiting
   * for approval — completed with conclusion `action_required`, no jobs run, so no check runs,
   * their check suite completed `action_required` (pytorch/test-infra#8029 saw such runs
   * arrive completed/action_required; platonai/Browser4#579: "zero jobs") — until a person
   * approves them ("Approve workflows to run"). `none`: no run at all, as the older wording
   * said and as wpt#60613 still observed.
   */
  tokenPullRequestRuns: 'none' | 'action-required';
  /**
   * The `head_branch` of an app's check suite (one per app per commit, made with the app's first
   * check run on the commit; which branch it names is not documented): `first-branch` (the
   * first branch in name order whose head is the commit then), `pushed-branch` (the branch
   * whose push first brought the commit; a step branch, say, before the run branch is
   * fast-forwarded onto it) or `null` (as GitHub sends for suites it cannot tie to a branch).
   */
  checkSuiteHeadBranch: 'first-branch' | 'pushed-branch' | 'null';
  /**
   * The `head_branch` of the check suite of a workflow run that a pull request from a fork
   * started (event `pull_request`, the run's `head_repository` the fork). The REST reference
   * ("Get a check suite") says "Pushes to a branch in a forked repository are not detected and
   * return an empty `pull_requests` array and a `null` value for `head_branch`"; the workflow
   * run itself names the fork's branch as its `head_branch`, and whether its suite follows the
   * run or the note is not written down. `fork-branch`: the fork's branch name (a fork may name
   * it `baton/<run>`); `null`: as the note says.
   */
  forkSuiteHeadBranch: 'fork-branch' | 'null';
  /**
   * Whether a workflow run that a job's `GITHUB_TOKEN` dispatched starts `on: workflow_run`
   * workflows when it completes. Events a GITHUB_TOKEN causes start no workflow except
   * `workflow_dispatch` and `repository_dispatch` (docs "Triggering a workflow from a
   * workflow"); whether the dispatched run's completion counts as caused by the token is not
   * written down. `fires`: it starts them; `silent`: it starts nothing (the App still gets the
   * webhook: this is about workflows only).
   */
  workflowRunAfterTokenDispatch: 'fires' | 'silent';
  /**
   * What `POST git/refs` answers for a commit only a fork has (reachable from no ref of the
   * repository but `refs/pull/<n>/head`; ISSUE U1, no public source settles it). `accepted`: a
   * ref is made, as for any commit of the fork network; `does-not-exist`: 422 "Reference does not
   * exist", as was seen at a fork pull request's head (omnigent-ai/omnigent#398); `workflow-rule`:
   * refused to a token without `workflows` as the workflow-file rule refuses a new ref on a commit
   * far from the default branch (GitHub Support, quoted in vercel/next.js#94596; wildfly/wildfly.org#549),
   * with that rule's answer (`workflowRefusalAt`).
   */
  forkShaRef: 'accepted' | 'does-not-exist' | 'workflow-rule';
  /**
   * Whether a push to a ref outside refs/heads and refs/tags (baton's `refs/baton/…`) starts
   * `on: push` workflows. The docs say push runs "when you push a commit or tag" and webhooks
   * name branches and tags only (webhook-events-and-payloads; reports: no webhooks for such refs,
   * hashbang/git-signatures#7): `silent`. `fires`: the other plausible behaviour — the workflow
   * runs, its branch filters matched against the ref's name after `refs/` (`baton/leases/…`);
   * no webhook is sent either way.
   */
  customRefPushRuns: 'silent' | 'fires';
}

/**
 * Readings no scenario of the conformance kit can tell apart from its one account and one
 * installation: they are settled by hand (docs/conformance.md, "The unknowns"), so they stay out
 * of `Readings` and READING_VALUES, which the kit runs a scenario for each of;
 * BY_HAND_READING_VALUES lists theirs. An emulator takes both (`EmulatorReadings`).
 */
export interface ByHandReadings {
  /**
   * Whose count GitHub's secondary limits on content creation are kept per (ISSUE U4). The docs
   * ("Rate limits for the REST API", § About secondary rate limits) give the numbers — "no more
   * than 80 content-generating requests per minute and no more than 500 content-generating
   * requests per hour", and "Some endpoints have lower content creation limits" — but no identity,
   * and say "Content creation limits include actions taken on the GitHub web interface as well as
   * via the REST API and GraphQL API", which points to the account. `installation`: each of the
   * App's installations has its own count; `app`: every installation of the App counts together;
   * `bot-account`: the App's `[bot]` account counts, one account across all its installations.
   * Through the API the last two count the same requests (every installation token of the App
   * acts as its one bot account; no one signs in to the web interface as a bot): they differ in
   * name only here, and a kit cannot tell them apart either (unknowns.ts, U4). Counted in
   * secondary-limits.ts.
   */
  secondaryLimitIdentity: 'installation' | 'app' | 'bot-account';
}

/** Every switch of one emulator. */
export type EmulatorReadings = Readings & ByHandReadings;

export const DEFAULT_READINGS: EmulatorReadings = {
  refUpdateWorkflows: 'old-value',
  refCreateRace: 'already-exists',
  workflowRefusalAt: 'trees',
  tokenPullRequestRuns: 'action-required',
  checkSuiteHeadBranch: 'first-branch',
  forkSuiteHeadBranch: 'fork-branch',
  workflowRunAfterTokenDispatch: 'fires',
  forkShaRef: 'does-not-exist',
  customRefPushRuns: 'silent',
  // The account, as the docs' "web interface" wording suggests; and the strictest for an App.
  secondaryLimitIdentity: 'bot-account',
};

/** Every value of every switch a scenario settles: what the conformance kit and the reading matrix iterate over. */
export const READING_VALUES: { [K in keyof Readings]: readonly Readings[K][] } = {
  refUpdateWorkflows: ['old-value', 'default-branch'],
  refCreateRace: ['already-exists', 'update-failed'],
  workflowRefusalAt: ['trees', 'commits', 'ref'],
  tokenPullRequestRuns: ['none', 'action-required'],
  checkSuiteHeadBranch: ['first-branch', 'pushed-branch', 'null'],
  forkSuiteHeadBranch: ['fork-branch', 'null'],
  workflowRunAfterTokenDispatch: ['fires', 'silent'],
  forkShaRef: ['accepted', 'does-not-exist', 'workflow-rule'],
  customRefPushRuns: ['silent', 'fires'],
};

/** Every value of every switch settled by hand (ByHandReadings). */
export const BY_HAND_READING_VALUES: { [K in keyof ByHandReadings]: readonly ByHandReadings[K][] } = {
  secondaryLimitIdentity: ['installation', 'app', 'bot-account'],
};

/** The readings of one emulator: defaults, then the environment's, then the test's own. */
export function readingsFrom(given: Partial<EmulatorReadings> = {}, env: string | undefined = process.env.BATON_EMULATOR_READINGS): EmulatorReadings {
  const fromEnv = env ? (JSON.parse(env) as Partial<EmulatorReadings>) : {};
  const out = { ...DEFAULT_READINGS, ...fromEnv, ...given };
  for (const [key, values] of Object.entries({ ...READING_VALUES, ...BY_HAND_READING_VALUES }) as [keyof EmulatorReadings, readonly string[]][]) {
    if (!values.includes(out[key])) throw new Error(`emulator reading ${key}: ${JSON.stringify(out[key])} is none of ${values.join(', ')}`);
  }
  return out;
}
