// Drift between the manifests and baton.yml's `on:` in Actions-only mode. GitHub starts
// baton.yml only for the events and activity types it lists ("Events that trigger
// workflows", docs.github.com/en/actions/reference/workflows-and-actions/events-that-trigger-workflows),
// so a trigger added to a manifest after `baton init` never fires until `baton update`
// rewrites the `on:` block (init/event-subscriptions.ts); and a cron left in baton.yml that
// no manifest uses starts baton.yml for nothing. Shared by the Action's validate mode,
// `baton validate` and `baton doctor`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { SWEEP_CRON } from '../app/sweep-cron.ts';
import { loadWorkflowText } from './load.ts';
import { SourceFile } from './source.ts';
import type { Workflow } from './types.ts';
import { ACTIONS_ONLY_WORKFLOW, MANIFESTS_DIR } from './warn-token.ts';

export interface SubscriptionWarning {
  file: string;
  line: number;
  column: number;
  title: string;
  message: string;
}

/** What a workflow's `on:` starts it for, as GitHub reads it. `types` undefined: every type. */
export interface Subscribed {
  pullRequest?: { types?: string[] };
  pullRequestTarget?: { types?: string[] };
  issues?: { types?: string[] };
  workflowRun?: { workflows: string[]; types?: string[] };
  /** Each cron with where it is written. */
  schedule: { cron: string; line: number; column: number }[];
}

/**
 * Activity types GitHub filters on when `types:` is absent: pull_request's three ("By default,
 * a workflow only runs when a pull_request event's activity type is opened, synchronize, or
 * reopened", docs, pull_request); the other events run for every type.
 */
const DEFAULT_TYPES: Record<string, string[]> = { pull_request: ['opened', 'synchronize', 'reopened'], pull_request_target: ['opened', 'synchronize', 'reopened'] };

const strings = (v: unknown): string[] | undefined => (v === undefined || v === null ? undefined : Array.isArray(v) ? v.map(String) : [String(v)]);

/** baton.yml's `on:` (any of GitHub's three forms); undefined when the file does not parse. */
export function subscribedIn(text: string): Subscribed | undefined {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length || !isMap(doc.contents)) return undefined;
  const onNode = doc.contents.get('on', true);
  const on = (doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>).on;
  const spec = (event: string): Record<string, unknown> | undefined => {
    if (typeof on === 'string') return on === event ? {} : undefined;
    if (Array.isArray(on)) return on.map(String).includes(event) ? {} : undefined;
    if (!on || typeof on !== 'object' || !(event in on)) return undefined;
    const s = (on as Record<string, unknown>)[event];
    return s && typeof s === 'object' && !Array.isArray(s) ? (s as Record<string, unknown>) : {};
  };
  const typed = (event: string) => {
    const s = spec(event);
    if (!s) return undefined;
    const types = strings(s.types) ?? DEFAULT_TYPES[event];
    return types ? { types } : {};
  };
  const out: Subscribed = { schedule: [] };
  const pr = typed('pull_request');
  if (pr) out.pullRequest = pr;
  const prt = typed('pull_request_target');
  if (prt) out.pullRequestTarget = prt;
  const issues = typed('issues');
  if (issues) out.issues = issues;
  const wr = spec('workflow_run');
  if (wr) out.workflowRun = { workflows: strings(wr.workflows) ?? [], ...(strings(wr.types) ? { types: strings(wr.types)! } : {}) };
  const sched = isMap(onNode) ? onNode.get('schedule', true) : undefined;
  if (isSeq(sched)) {
    for (const item of sched.items) {
      if (!isMap(item)) continue;
      const cron = item.get('cron', true);
      if (!isScalar(cron) || typeof cron.value !== 'string') continue;
      const at = lines.linePos(cron.range?.[0] ?? 0);
      out.schedule.push({ cron: cron.value, line: at.line, column: at.col });
    }
  }
  return out;
}

const has = (sub: { types?: string[] } | undefined, type: string): boolean => sub !== undefined && (sub.types === undefined || sub.types.includes(type));

/** What one manifest needs that baton.yml does not subscribe to, in words (`pull_request opened`…). */
export function missingFor(w: Workflow, s: Subscribed): { pointer: string; what: string }[] {
  const out: { pointer: string; what: string }[] = [];
  for (const t of w.on.pullRequest?.types ?? []) if (!has(s.pullRequest, t)) out.push({ pointer: '/on/pull_request', what: `pull_request ${t}` });
  // A fork's pull request reaches baton.yml only through pull_request_target (event-subscriptions.ts).
  if (w.on.pullRequest?.forks === 'review') for (const t of w.on.pullRequest.types) if (!has(s.pullRequestTarget, t)) out.push({ pointer: '/on/pull_request/forks', what: `pull_request_target ${t}` });
  for (const t of w.on.issues?.types ?? []) if (!has(s.issues, t)) out.push({ pointer: '/on/issues', what: `issues ${t}` });
  for (const name of w.on.workflowRun?.workflows ?? []) {
    if (!s.workflowRun?.workflows.includes(name) || !has(s.workflowRun, 'completed')) out.push({ pointer: '/on/workflow_run', what: `workflow_run of ${JSON.stringify(name)} (completed)` });
  }
  for (const e of w.on.schedule ?? []) if (!s.schedule.some((c) => c.cron === e.cron)) out.push({ pointer: '/on/schedule', what: `schedule '${e.cron}'` });
  return out;
}

/** Warnings for the repository's files (path → text, relative to its root); nothing without baton.yml. */
export function subscriptionWarnings(files: Record<string, string>): SubscriptionWarning[] {
  const batonYml = files[ACTIONS_ONLY_WORKFLOW];
  if (batonYml === undefined) return [];
  const subscribed = subscribedIn(batonYml);
  if (!subscribed) return []; // a baton.yml that does not parse: GitHub's own error says more
  const out: SubscriptionWarning[] = [];
  const used = new Set<string>([SWEEP_CRON]);
  for (const [file, text] of Object.entries(files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!file.startsWith(`${MANIFESTS_DIR}/`) || !/\.ya?ml$/.test(file)) continue;
    const loaded = loadWorkflowText(file, text).loaded; // invalid manifests: the validator's to report
    if (!loaded) continue;
    for (const e of loaded.workflow.on.schedule ?? []) used.add(e.cron);
    const source = new SourceFile(file, text);
    for (const m of missingFor(loaded.workflow, subscribed)) {
      const at = source.locate(m.pointer, { key: true });
      out.push({
        file,
        line: at.line,
        column: at.column,
        title: 'baton.yml does not start for this trigger',
        message: `${file} starts on ${m.what}, but ${ACTIONS_ONLY_WORKFLOW} does not subscribe to it, so GitHub never starts baton for it: run \`baton update\` (it rewrites the \`on:\` of ${ACTIONS_ONLY_WORKFLOW} from the manifests) and commit it`,
      });
    }
  }
  for (const c of subscribed.schedule) {
    if (used.has(c.cron)) continue;
    out.push({
      file: ACTIONS_ONLY_WORKFLOW,
      line: c.line,
      column: c.column,
      title: 'a schedule no workflow uses',
      message: `schedule '${c.cron}' is neither baton's sweep nor any manifest's on.schedule: it starts baton for nothing; run \`baton update\` to drop it`,
    });
  }
  return out;
}

/** The same for a checkout on disk. */
export function subscriptionWarningsIn(root: string): SubscriptionWarning[] {
  const baton = join(root, ACTIONS_ONLY_WORKFLOW);
  if (!existsSync(baton)) return [];
  const files: Record<string, string> = { [ACTIONS_ONLY_WORKFLOW]: readFileSync(baton, 'utf8') };
  const dir = join(root, MANIFESTS_DIR);
  if (existsSync(dir)) for (const name of readdirSync(dir)) if (/\.ya?ml$/.test(name)) files[`${MANIFESTS_DIR}/${name}`] = readFileSync(join(dir, name), 'utf8');
  return subscriptionWarnings(files);
}
