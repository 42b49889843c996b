/**
 * Secondary rate limits are observed, never provoked: every request of the run passes through
 * one hook (targets/octokit.ts) that records any secondary limit it meets. This scenario runs
 * last and reports their shape, or that none was met.
 */
import { attempt, show, type Answer } from '../observe.ts';
import { Skip, type Scenario } from '../types.ts';
import { PREFIX, scratchIssue } from './support.ts';

/** GitHub's message for a secondary limit (FIDELITY.md, "Secondary rate limits"). */
const SECONDARY = /secondary rate limit/i;

export const secondaryLimitShape: Scenario = {
  name: 'secondary rate limit (observed when met)',
  assumption: { row: 'Secondary rate limits' },
  // The emulator counts the App's writes (tests/emulator/secondary-limits.ts): U4's scenario, run
  // before this one, meets the limit there.
  claim: '403, retry-after absent, x-ratelimit-remaining above 0',
  needs: [],
  routes: [],
  requests: 0,
  async run(ctx) {
    const met = ctx.target.limitsMet;
    if (met.length === 0) return { answer: 'not met in this run', unobserved: true };
    // Whether the primary limit is spent (0) tells the two apart; its count is the run's, not the limit's shape.
    const remaining = (r: string | null) => (r === null ? 'absent' : Number(r) === 0 ? '0' : 'above 0');
    const shapes = met.map((m) => `${m.status}, retry-after ${m.retryAfter ?? 'absent'}, x-ratelimit-remaining ${remaining(m.remaining)}`);
    return { answer: [...new Set(shapes)].join(' / '), detail: met[0]!.message };
  },
};

/** More than GitHub's documented content-creation limit (80 a minute), so that one is met if it is counted. */
const IDENTITY_WRITES = 100;

/** U4's answers (how many writes A made first depends on what the run wrote before: it is detail). */
const ACROSS_INSTALLATIONS = 'A limited, then B limited too: counted across installations (per App or per bot account)';
const PER_INSTALLATION = 'A limited, then B wrote: counted per installation';

/** The by-hand steps for U4 against GitHub, where the kit holds one installation. */
export const LIMIT_IDENTITY_BY_HAND =
  'needs baton\'s App installed on a second account (installation B, with a repository of its own) beside the sandbox\'s (A): within one minute post more than 80 issue comments on a sandbox issue with A\'s installation token until a 403/429 "secondary rate limit" answer, then at once post one comment on B\'s repository with B\'s token; a secondary limit on B means the count is shared across installations (per App or per bot account: installation tokens cannot tell those apart, both write as the one `[bot]` account), a 201 means per installation; record both answers with their `retry-after` and `x-ratelimit-*` headers';

/**
 * ISSUE U4: are secondary limits counted per installation, or across the App's installations?
 * Writes through installation A until a secondary limit is met (never past IDENTITY_WRITES),
 * then once through installation B on its own repository. Needs a second installation, which
 * the emulator makes and the kit does not hold on GitHub (LIMIT_IDENTITY_BY_HAND).
 */
export const secondaryLimitIdentity: Scenario = {
  name: 'which identity a secondary limit counts',
  assumption: { row: 'Secondary rate limits' },
  // The emulator's default reading (`secondaryLimitIdentity`, settled by hand: BY_HAND_READING_VALUES).
  claim: ACROSS_INSTALLATIONS,
  needs: ['app', 'maintainer'],
  routes: ['POST /repos/{owner}/{repo}/issues', 'PATCH /repos/{owner}/{repo}/issues/{issue_number}', 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments'],
  requests: IDENTITY_WRITES + 5,
  async run(ctx) {
    const second = ctx.target.secondInstallation;
    if (second === undefined) throw new Skip(LIMIT_IDENTITY_BY_HAND);
    const app = ctx.as('app');
    const { owner, repo } = ctx.target;
    // Closing the issue is the cleanup: its comments go with it out of sight, and deleting a
    // hundred of them would be a hundred more writes. The maintainer closes it: the App's
    // writes are blocked for a while once the limit is met.
    const issue = await scratchIssue(ctx, app, ctx.as('maintainer'));
    let limited: Answer<unknown> | undefined;
    let written = 0;
    while (written < IDENTITY_WRITES && limited === undefined) {
      const answer = await attempt(app.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: issue.number, body: `${PREFIX} ${ctx.id} write ${written + 1}` }));
      if (answer.ok) written++;
      else if (SECONDARY.test(answer.message)) limited = answer;
      else throw new Error(`comment ${written + 1} through installation A: ${show(answer)}`);
    }
    if (limited === undefined) return { answer: `no secondary limit met within ${IDENTITY_WRITES} comments through one installation`, unobserved: true };
    const other = await second();
    const b = other.octokit;
    const opened = await attempt(b.request('POST /repos/{owner}/{repo}/issues', { owner: other.owner, repo: other.repo, title: `${PREFIX} scratch issue ${ctx.id} (closed by the kit)` }));
    if (!opened.ok) {
      if (SECONDARY.test(opened.message)) return { answer: ACROSS_INSTALLATIONS, detail: `A limited after ${written} writes (${show(limited)}); B: ${show(opened)}` };
      throw new Error(`opening an issue through installation B: ${show(opened)}`);
    }
    const theirs = opened.data;
    ctx.cleanup(`issue #${theirs.number} of ${other.owner}/${other.repo}`, () =>
      b.request('PATCH /repos/{owner}/{repo}/issues/{issue_number}', { owner: other.owner, repo: other.repo, issue_number: theirs.number, state: 'closed', state_reason: 'not_planned' }),
    );
    return { answer: PER_INSTALLATION, detail: `A limited after ${written} writes (${show(limited)}); B wrote` };
  },
};
