// Which workflows an event starts, and on which ref and commit — GitHub's rules from
// "Events that trigger workflows", for the events the emulator emits: `on:` in its three
// forms, `types:` against the payload's `action` (with GitHub's default types where an
// event has them), `branches`/`branches-ignore`/`tags`/`tags-ignore` for push,
// pull_request and pull_request_target, `workflows:` (and `branches`) for workflow_run.
import { ACTIONS_APP } from '../store.ts';
import { git } from './git.ts';
import { KeyedQueue } from '../../../src/app/queue.ts';

/** Webhook events that can start a workflow (workflow_dispatch is the dispatch endpoint's). */
export const TRIGGER_EVENTS = new Set([
  'branch_protection_rule',
  'check_run',
  'check_suite',
  'create',
  'delete',
  'deployment',
  'deployment_status',
  'discussion',
  'discussion_comment',
  'fork',
  'gollum',
  'issue_comment',
  'issues',
  'label',
  'merge_group',
  'milestone',
  'page_build',
  'public',
  'pull_request',
  'pull_request_review',
  'pull_request_review_comment',
  'push',
  'registry_package',
  'release',
  'repository_dispatch',
  'status',
  'watch',
  'workflow_run',
]);

/** The identity of a job's GITHUB_TOKEN: what it does starts no workflow. */
export const GITHUB_TOKEN_LOGIN = 'github-actions[bot]';

/** Events a GITHUB_TOKEN may cause and still start workflows (GitHub's exceptions). */
export const TOKEN_EXEMPT = new Set(['workflow_dispatch', 'repository_dispatch', 'workflow_run']);

/**
 * Whether a GITHUB_TOKEN's event creates workflow runs waiting for approval instead of none:
 * `pull_request` `opened`, `synchronize` and `reopened` do, other activity types do not
 * (docs "GITHUB_TOKEN", "When GITHUB_TOKEN triggers workflow runs"; readings.ts
 * `tokenPullRequestRuns` for whether GitHub does it at all).
 */
export function tokenRunsAwaitApproval(event: string, action: string | undefined): boolean {
  return event === 'pull_request' && (action === 'opened' || action === 'synchronize' || action === 'reopened');
}

/**
 * Why a `check_run`/`check_suite` event starts no workflow, or undefined when it may: GitHub
 * prevents recursion by not starting workflows for check events of a suite GitHub Actions
 * created, nor for a `check_suite` whose head commit Actions ran on (docs "Events that
 * trigger workflows", check_run and check_suite).
 */
export function startedByActions(event: string, payload: Record<string, unknown>, actionsRanOn: (sha: string) => boolean): string | undefined {
  if (event !== 'check_run' && event !== 'check_suite') return undefined;
  const suite = (event === 'check_run' ? (payload.check_run as { check_suite?: unknown } | undefined)?.check_suite : payload.check_suite) as
    | { app?: { slug?: string }; head_sha?: string }
    | undefined;
  if (suite?.app?.slug === ACTIONS_APP) return `a ${event} event of a GitHub Actions check suite: GitHub starts no workflow for it`;
  if (event === 'check_suite' && suite?.head_sha && actionsRanOn(suite.head_sha)) return 'a check_suite event on a commit GitHub Actions ran on: GitHub starts no workflow for it';
  return undefined;
}

/** GitHub does not chain workflow_run deeper than this. */
export const MAX_WORKFLOW_RUN_DEPTH = 3;

/** Activity types an event filters on when `types:` is not given (others: every type). */
const DEFAULT_TYPES: Record<string, string[]> = {
  pull_request: ['opened', 'synchronize', 'reopened'],
  pull_request_target: ['opened', 'synchronize', 'reopened'],
  workflow_run: ['requested', 'completed'],
};

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.map(String) : [String(v)];
}

/** The `on:` entry for an event: undefined when the workflow does not listen to it, `{}` for the short forms. */
export function eventSpec(on: unknown, event: string): Obj | undefined {
  if (typeof on === 'string') return on === event ? {} : undefined;
  if (Array.isArray(on)) return on.map(String).includes(event) ? {} : undefined;
  if (!isObj(on) || !(event in on)) return undefined;
  const spec = on[event];
  return isObj(spec) ? spec : {};
}

/** A branch/tag filter pattern as a regex: `*` stops at `/`, `**` does not, `?` and `+` as in GitHub's syntax. */
export function globRegex(pattern: string): RegExp {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?' || c === '+') out += c; // zero or one / one or more of the preceding character
    else if (c === '[') {
      const end = pattern.indexOf(']', i);
      if (end < 0) out += '\\[';
      else {
        out += pattern.slice(i, end + 1);
        i = end;
      }
    } else out += c.replace(/[.^$|(){}\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** Positive patterns include, `!patterns` exclude again; the last match wins. */
export function matchesFilter(patterns: string[], name: string): boolean {
  let matched = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (globRegex(p.slice(1)).test(name)) matched = false;
    } else if (globRegex(p).test(name)) matched = true;
  }
  return matched;
}

function passesRefFilters(spec: Obj, kind: 'branch' | 'tag', name: string, tagsAllowed: boolean): boolean {
  const branches = list(spec.branches);
  const branchesIgnore = list(spec['branches-ignore']);
  const tags = tagsAllowed ? list(spec.tags) : undefined;
  const tagsIgnore = tagsAllowed ? list(spec['tags-ignore']) : undefined;
  const anyBranch = branches !== undefined || branchesIgnore !== undefined;
  const anyTag = tags !== undefined || tagsIgnore !== undefined;
  // Filters on one kind of ref only: the other kind does not start the workflow.
  if (kind === 'branch' && !anyBranch && anyTag) return false;
  if (kind === 'tag' && !anyTag && anyBranch) return false;
  const [include, ignore] = kind === 'branch' ? [branches, branchesIgnore] : [tags, tagsIgnore];
  if (include !== undefined) return matchesFilter(include, name);
  if (ignore !== undefined) return !ignore.some((p) => globRegex(p).test(name));
  return true;
}

/**
 * Whether a workflow's `on:` starts it for this event and payload (`workflow_run`'s
 * `workflows:` compares with the triggering run's workflow name).
 */
export function workflowListens(on: unknown, event: string, payload: Obj, customRefPushRuns: 'silent' | 'fires' = 'silent'): boolean {
  const spec = eventSpec(on, event);
  if (spec === undefined) return false;
  const action = typeof payload.action === 'string' ? payload.action : undefined;
  const types = list(spec.types) ?? DEFAULT_TYPES[event];
  if (types !== undefined && action !== undefined && !types.includes(action)) return false;
  switch (event) {
    case 'push': {
      const ref = String(payload.ref ?? '');
      if (ref.startsWith('refs/tags/')) return passesRefFilters(spec, 'tag', ref.slice('refs/tags/'.length), true);
      // "Runs your workflow when you push a commit or tag" (docs, "Events that trigger workflows",
      // push): a branch or a tag. Other refs (baton's claims under refs/baton/, refs/notes/…) start
      // nothing — unless the reading `customRefPushRuns` is `fires`: then they are filtered by their name after refs/.
      if (!ref.startsWith('refs/heads/')) return customRefPushRuns === 'fires' && !ref.startsWith('refs/pull/') ? passesRefFilters(spec, 'branch', ref.slice('refs/'.length), true) : false;
      return passesRefFilters(spec, 'branch', ref.slice('refs/heads/'.length), true);
    }
    case 'pull_request':
    case 'pull_request_target': {
      const base = (payload.pull_request as { base?: { ref?: string } } | undefined)?.base?.ref ?? '';
      return passesRefFilters(spec, 'branch', base, false);
    }
    case 'schedule':
      // A scheduled event names the cron expression that fired (`github.event.schedule`), and
      // starts only the workflows listing that expression; schedules run on the default branch
      // (docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#schedule).
      return cronsOf(on).includes(String(payload.schedule ?? ''));
    case 'workflow_run': {
      // `workflows:` names workflows by their `name:`, and any one of them listed starts it;
      // `branches` filters the triggering run's head branch
      // (docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows#workflow_run).
      // The docs set no limit on how many workflows the list may name (only on chaining: three levels).
      const run = (payload.workflow_run ?? {}) as { name?: string; head_branch?: string | null };
      const workflows = list(spec.workflows);
      if (workflows === undefined || !workflows.includes(String(run.name ?? ''))) return false;
      return passesRefFilters(spec, 'branch', String(run.head_branch ?? ''), false);
    }
    default:
      return true;
  }
}

/** The cron expressions of `on: schedule: [{ cron: … }]` (GitHub's only form of the trigger). */
export function cronsOf(on: unknown): string[] {
  const spec = isObj(on) ? on.schedule : undefined;
  if (!Array.isArray(spec)) return [];
  return spec.filter(isObj).map((e) => e.cron).filter((c): c is string => typeof c === 'string');
}

/** `refs/heads/main` → `main`, `refs/pull/3/merge` → `3/merge`, as GITHUB_REF_NAME. */
export function refName(ref: string): string {
  return ref.replace(/^refs\/(heads|tags|pull)\//, '');
}

/**
 * The test merge commit GitHub keeps at `refs/pull/<n>/merge` (and the head at
 * `refs/pull/<n>/head`): undefined when the pull request does not merge cleanly, in which
 * case GitHub starts no `pull_request` workflow either: "Workflows will not run on
 * pull_request activity if the pull request has a merge conflict. The merge conflict must be
 * resolved first" (docs "Events that trigger workflows", pull_request). Any activity: a label,
 * a close, a push. `pull_request_target` runs anyway (it does not run on the merge commit).
 */
export function pullMergeCommit(gitDir: string, number: number, baseSha: string, headSha: string): Promise<string | undefined> {
  // Events of one pull request (opened, labeled) are triggered side by side: one computes the
  // merge commit, the others then find it kept, instead of each writing its own (under load
  // two commits made a second apart differ, and a run ended up on a commit the ref no longer names).
  return mergeCommits.run(`${gitDir}#${number}`, () => computeMergeCommit(gitDir, number, baseSha, headSha));
}

const mergeCommits = new KeyedQueue();

async function computeMergeCommit(gitDir: string, number: number, baseSha: string, headSha: string): Promise<string | undefined> {
  // GitHub recomputes the merge commit only when the head or the base moves: a second event on
  // an unchanged pull request (labeled, edited) runs on the same commit.
  // (No --verify: it takes exactly one name and would fail here every time.)
  const kept = await git(['--git-dir', gitDir, 'rev-parse', `refs/pull/${number}/merge^1`, `refs/pull/${number}/merge^2`, `refs/pull/${number}/merge`]).catch(() => '');
  const [keptBase, keptHead, keptMerge] = kept.split('\n').map((l) => l.trim());
  if (keptBase === baseSha && keptHead === headSha && keptMerge) return keptMerge;
  let tree: string;
  try {
    tree = (await git(['--git-dir', gitDir, 'merge-tree', '--write-tree', baseSha, headSha])).split('\n')[0]!.trim();
  } catch {
    return undefined;
  }
  const sha = (await git(['--git-dir', gitDir, 'commit-tree', tree, '-p', baseSha, '-p', headSha, '-m', `Merge ${headSha} into ${baseSha}`])).trim();
  await git(['--git-dir', gitDir, 'update-ref', `refs/pull/${number}/head`, headSha]);
  await git(['--git-dir', gitDir, 'update-ref', `refs/pull/${number}/merge`, sha]);
  return sha;
}
