// What baton.yml's `on:` lists in Actions-only mode, derived from the manifests
// (init/event-subscriptions.ts): GitHub starts baton.yml only for what it lists, so a
// manifest's trigger missing there never starts a run.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SWEEP_CRON } from '../../src/app/sweep-cron.ts';
import { eventSubscriptions, onBlock } from '../../src/init/event-subscriptions.ts';
import { loadWorkflowText, readBundledLibrary, type LibraryReader } from '../../src/manifest/load.ts';
import type { Workflow } from '../../src/manifest/types.ts';
import { subscribedIn, subscriptionWarnings } from '../../src/manifest/warn-subscriptions.ts';

const STEPS = `agents:
  a: { uses: claude-code }
steps:
  - id: go
    agent: a
    writes: false
    prompt: Go.
`;

function manifest(name: string, text: string, library?: LibraryReader): Workflow {
  const r = loadWorkflowText(`.agents/workflows/${name}.yml`, text, library);
  if (!r.loaded) throw new Error(r.diagnostics.map((d) => d.message).join('\n'));
  return r.loaded.workflow;
}

const review = manifest('review', `on:\n  pull_request: { types: [synchronize, opened], branches: [main], paths: ['src/**'] }\n${STEPS}`);
const triage = manifest('triage', `on:\n  issues: { types: [edited, opened] }\n${STEPS}`);
const doctor = manifest('doctor', `on:\n  workflow_run: { workflows: [Nightly, CI], branches: [main] }\n${STEPS}`);
const weekly = manifest('weekly', `on:\n  schedule: [{ cron: '0 6 * * 1' }, { cron: '${SWEEP_CRON}' }]\n${STEPS}`);
const labels = manifest('labels', `on:\n  labels: [go]\n${STEPS}`);

/** What GitHub reads back from the `on:` block as written. */
const written = (w: Workflow[]) => (parse([...onBlock(eventSubscriptions(w)), 'jobs: {}'].join('\n')) as { on: Record<string, unknown> }).on;

describe("baton.yml's on: from the manifests", () => {
  it('forks: review adds pull_request_target with its types (a fork\'s pull_request run has no token to drive a run); baton update names the drift', () => {
    const forks = manifest('forks', `on:\n  pull_request: { types: [synchronize, opened], forks: review, authors: [any] }\n${STEPS}`);
    expect(eventSubscriptions([review, forks]).pullRequestTarget).toEqual(['opened', 'synchronize']);
    expect(written([review, forks]).pull_request_target).toEqual({ types: ['opened', 'synchronize'] });
    expect(eventSubscriptions([review]).pullRequestTarget).toEqual([]);
    const yml = [...onBlock(eventSubscriptions([review])), 'jobs: {}'].join('\n');
    expect(subscriptionWarnings({ '.github/workflows/baton.yml': yml, '.agents/workflows/forks.yml': `on:\n  pull_request: { types: [synchronize, opened], forks: review, authors: [any] }\n${STEPS}` }).map((w) => w.message).join('\n')).toContain('pull_request_target opened');
  });

  it("only labels: baton's own events, as before manifests had triggers", () => {
    expect(eventSubscriptions([labels])).toEqual({ pullRequest: ['labeled', 'closed'], pullRequestTarget: [], issues: ['labeled'], workflowRun: [], schedule: [SWEEP_CRON] });
    expect(written([labels]).pull_request_target).toBeUndefined();
    const on = written([labels]);
    expect(on.workflow_run).toBeUndefined();
    expect(on.schedule).toEqual([{ cron: SWEEP_CRON }]);
  });

  it("pull_request: the manifest's types, never its branches or paths (baton filters those itself)", () => {
    const on = written([review]);
    expect(on.pull_request).toEqual({ types: ['labeled', 'closed', 'opened', 'synchronize'] });
  });

  it('issues: labeled and the manifest types', () => {
    expect(written([triage]).issues).toEqual({ types: ['labeled', 'opened', 'edited'] });
  });

  it('workflow_run: the watched names, completed only', () => {
    expect(written([doctor]).workflow_run).toEqual({ workflows: ['CI', 'Nightly'], types: ['completed'] });
  });

  it("schedule: the sweep's cron once, then every other cron", () => {
    expect(written([weekly]).schedule).toEqual([{ cron: SWEEP_CRON }, { cron: '0 6 * * 1' }]);
  });

  it('a checks step that dispatches CI: baton.yml hears that workflow finish, by the name GitHub knows it by', () => {
    const ci = manifest('ci', `on: { labels: [go] }\n${STEPS}  - id: ci\n    checks: { names: ['*'], workflow: ci.yml }\n`);
    expect(eventSubscriptions([ci], (f) => (f === 'ci.yml' ? 'Tests' : undefined)).workflowRun).toEqual(['Tests']);
    expect(eventSubscriptions([ci], () => undefined).workflowRun).toEqual([]);
  });

  it('the union over manifests, in the same order whatever order they come in', () => {
    const all = [review, triage, doctor, weekly, labels];
    const once = onBlock(eventSubscriptions(all)).join('\n');
    expect(onBlock(eventSubscriptions([...all].reverse())).join('\n')).toBe(once);
    const twice = manifest('review2', `on:\n  pull_request: { types: [opened, reopened] }\n  schedule: [{ cron: '0 6 * * 1' }]\n${STEPS}`);
    const s = eventSubscriptions([review, twice, weekly]);
    expect(s.pullRequest).toEqual(['labeled', 'closed', 'opened', 'synchronize', 'reopened']);
    expect(s.schedule).toEqual([SWEEP_CRON, '0 6 * * 1']);
  });

  it('a manifest that extends a library workflow: the triggers it writes and the ones it inherits count', () => {
    const extended = manifest('triage-new', `extends: triage\non:\n  issues: { types: [opened] }\n`);
    expect(eventSubscriptions([extended]).issues).toEqual(['labeled', 'opened']);
    // A library workflow with a trigger of its own, extended without touching `on:`.
    const library: LibraryReader = (name) => (name === 'pr-review' ? { file: 'workflows-library/pr-review.yml', text: `name: pr-review\non:\n  pull_request: { types: [ready_for_review] }\n${STEPS}` } : readBundledLibrary(name));
    const inherits = manifest('my-review', 'extends: pr-review\ndescription: ours\n', library);
    expect(eventSubscriptions([inherits]).pullRequest).toEqual(['labeled', 'closed', 'ready_for_review']);
  });

  it('a workflow name or cron a YAML reader could misread is written as data', () => {
    const odd = manifest('odd', `on:\n  workflow_run: { workflows: ["it's: [CI] #1", "x\\ny"] }\n${STEPS}`);
    expect(written([odd]).workflow_run).toEqual({ workflows: ["it's: [CI] #1", 'x\ny'], types: ['completed'] });
  });

  it('the drift warning: a trigger baton.yml lacks, on the manifest line; a cron no manifest uses, on baton.yml', () => {
    const text = `name: review\non:\n  pull_request: { types: [opened] }\n${STEPS}`;
    const stale = [...onBlock(eventSubscriptions([])), "  workflow_dispatch:", 'jobs: {}'].join('\n').replace(`[{ cron: '${SWEEP_CRON}' }]`, `[{ cron: '${SWEEP_CRON}' }, { cron: '0 7 * * *' }]`);
    const warnings = subscriptionWarnings({ '.github/workflows/baton.yml': stale, '.agents/workflows/review.yml': text });
    expect(warnings.map((w) => [w.file, w.line, w.message.replace(/(: it starts|: run).*/, '')])).toEqual([
      ['.agents/workflows/review.yml', 3, '.agents/workflows/review.yml starts on pull_request opened, but .github/workflows/baton.yml does not subscribe to it, so GitHub never starts baton for it'],
      ['.github/workflows/baton.yml', stale.split('\n').findIndex((l) => l.includes('0 7 * * *')) + 1, "schedule '0 7 * * *' is neither baton's sweep nor any manifest's on.schedule"],
    ]);
    // baton.yml as derived from the same manifest: nothing to say.
    const fresh = [...onBlock(eventSubscriptions([manifest('review', text)])), 'jobs: {}'].join('\n');
    expect(subscriptionWarnings({ '.github/workflows/baton.yml': fresh, '.agents/workflows/review.yml': text })).toEqual([]);
    // No baton.yml (App mode): nothing either.
    expect(subscriptionWarnings({ '.agents/workflows/review.yml': text })).toEqual([]);
  });

  it("reads baton.yml's on: as GitHub does: a bare pull_request is opened, synchronize, reopened", () => {
    expect(subscribedIn('on: pull_request\njobs: {}')!.pullRequest).toEqual({ types: ['opened', 'synchronize', 'reopened'] });
    expect(subscribedIn('on: [issues]\njobs: {}')!.issues).toEqual({});
  });
});
