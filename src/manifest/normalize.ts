// Turns a schema-valid manifest document into the normalised Workflow: defaults
// applied, kebab-case keys renamed, and the implicit "wait for the step above" made explicit.
import { normalizeMcpServers } from './mcp-servers.ts';
import {
  DEFAULT_PULL_REQUEST_TYPES,
  DEFAULT_ROLES,
  ROLES,
  STEP_KINDS,
  type Authors,
  type PullRequestTrigger,
  type WorkflowRunTrigger,
  type AgentSpec,
  type InputSpec,
  type LimitsSpec,
  type Role,
  type Step,
  type StepKind,
  type Workflow,
} from './types.ts';

type Raw = Record<string, any>;

/** Which key of a raw step names its kind; the schema guarantees exactly one. */
export function stepKind(raw: Raw): StepKind | undefined {
  for (const kind of STEP_KINDS) {
    if (raw[kind] !== undefined) return kind;
  }
  return undefined;
}

export function normalize(raw: Raw, defaultName: string): Workflow {
  const name = typeof raw.name === 'string' ? raw.name : defaultName;
  const on: Raw = raw.on ?? {};
  const roles: Role[] = on.roles ?? [...DEFAULT_ROLES];
  const steps: Step[] = [];
  (raw.steps as Raw[] | undefined ?? []).forEach((s, i, all) => {
    const previous = i > 0 ? all[i - 1]!.id : undefined;
    steps.push(normalizeStep(s, previous, roles));
  });
  return {
    name,
    ...(raw.description !== undefined && { description: String(raw.description) }),
    on: {
      labels: on.labels ?? [],
      // A workflow can always be started by name unless it names its commands.
      commands: on.commands ?? [name],
      roles,
      bots: on.bots ?? [],
      ...(on.pull_request !== undefined && { pullRequest: normalizePullRequest(on.pull_request ?? {}, roles) }),
      ...(on.issues !== undefined && { issues: { types: on.issues?.types ?? ['opened'], authors: normalizeAuthors(on.issues?.authors, roles) } }),
      ...(on.workflow_run !== undefined && { workflowRun: normalizeWorkflowRun(on.workflow_run ?? {}, roles) }),
      ...(on.schedule !== undefined && { schedule: (on.schedule as Raw[]).map((e) => ({ cron: String(e.cron) })) }),
    },
    inputs: Object.fromEntries(Object.entries((raw.inputs ?? {}) as Record<string, Raw>).map(([k, v]) => [k, normalizeInput(v)])),
    agents: Object.fromEntries(Object.entries((raw.agents ?? {}) as Record<string, Raw>).map(([k, v]) => [k, normalizeAgent(v)])),
    budget: {
      ...(raw.budget?.['max-steps'] !== undefined && { maxSteps: raw.budget['max-steps'] }),
      ...(raw.budget?.['max-minutes'] !== undefined && { maxMinutes: raw.budget['max-minutes'] }),
      ...(raw.budget?.['max-cost-usd'] !== undefined && { maxCostUsd: raw.budget['max-cost-usd'] }),
      ...(raw.budget?.['raise-to'] !== undefined && {
        raiseTo: {
          ...(raw.budget['raise-to']['cost-usd'] !== undefined && { costUsd: raw.budget['raise-to']['cost-usd'] }),
          ...(raw.budget['raise-to'].minutes !== undefined && { minutes: raw.budget['raise-to'].minutes }),
          ...(raw.budget['raise-to'].turns !== undefined && { turns: raw.budget['raise-to'].turns }),
        },
      }),
      ...(raw.budget?.['per-day'] !== undefined && {
        perDay: {
          ...(raw.budget['per-day']['max-runs'] !== undefined && { maxRuns: raw.budget['per-day']['max-runs'] }),
          ...(raw.budget['per-day']['max-cost-usd'] !== undefined && { maxCostUsd: raw.budget['per-day']['max-cost-usd'] }),
        },
      }),
    },
    ...(raw.concurrency !== undefined && { concurrency: { ...(raw.concurrency['cancel-in-progress'] !== undefined && { cancelInProgress: Boolean(raw.concurrency['cancel-in-progress']) }) } }),
    steps,
  };
}

/** `authors` as written (roles, `any`, bot logins) → its parts; absent: the workflow's roles. */
function normalizeAuthors(v: unknown, roles: Role[]): Authors {
  if (!Array.isArray(v)) return { any: false, roles: [...roles], bots: [] };
  const words = v.map(String);
  return {
    any: words.includes('any'),
    roles: words.filter((w): w is Role => (ROLES as readonly string[]).includes(w)),
    bots: words.filter((w) => w !== 'any' && !(ROLES as readonly string[]).includes(w)),
  };
}

function normalizePullRequest(v: Raw, roles: Role[]): PullRequestTrigger {
  return {
    types: v.types ?? [...DEFAULT_PULL_REQUEST_TYPES],
    branches: stringList(v.branches),
    paths: stringList(v.paths),
    drafts: v.drafts ?? false,
    authors: normalizeAuthors(v.authors, roles),
    pushToHead: v['push-to-head'] ?? false,
    forks: v.forks ?? 'ignore',
  };
}

function normalizeWorkflowRun(v: Raw, roles: Role[]): WorkflowRunTrigger {
  return {
    workflows: stringList(v.workflows),
    branches: stringList(v.branches),
    conclusions: v.conclusions ?? ['failure'],
    authors: normalizeAuthors(v.authors, roles),
  };
}

function normalizeInput(v: Raw): InputSpec {
  return {
    type: v.type ?? 'string',
    required: v.required ?? false,
    ...(v.default !== undefined && { default: v.default }),
    ...(v.description !== undefined && { description: String(v.description) }),
    ...(v.options !== undefined && { options: v.options }),
  };
}

function normalizeAgent(v: Raw): AgentSpec {
  return {
    uses: v.uses,
    env: stringMap(v.env),
    ...(v.model !== undefined && { model: String(v.model) }),
    ...(v['timeout-minutes'] !== undefined && { timeoutMinutes: v['timeout-minutes'] }),
    ...(v['max-turns'] !== undefined && { maxTurns: v['max-turns'] }),
    ...(v.run !== undefined && { run: v.run }),
    ...(v.args !== undefined && { args: v.args }),
    ...(v['mcp-servers'] !== undefined && { mcpServers: normalizeMcpServers(v['mcp-servers']) }),
    ...(v.fallback !== undefined && { fallback: String(v.fallback) }),
    // Only when set: existing manifests normalise (and hash) as before.
    ...(v.network !== undefined && { network: { allow: stringList(v.network?.allow) } }),
    ...(v.sandbox !== undefined && { sandbox: v.sandbox }),
    ...(v.limits !== undefined && { limits: normalizeLimits(v.limits) }),
  };
}

function normalizeStep(s: Raw, previous: string | undefined, runRoles: Role[]): Step {
  const kind = stepKind(s)!;
  const base = {
    id: String(s.id),
    name: s.name !== undefined ? String(s.name) : String(s.id),
    needs: Array.isArray(s.needs) ? s.needs.map(String) : previous !== undefined ? [previous] : [],
    retries: s.retries ?? 0,
    // Only agent and run steps can change files, whatever `writes` says elsewhere.
    writes: (kind === 'agent' || kind === 'run') && (s.writes ?? true),
    env: stringMap(s.env),
    ...(s.if !== undefined && { if: String(s.if) }),
    ...(s['timeout-minutes'] !== undefined && { timeoutMinutes: s['timeout-minutes'] }),
    ...(s['for-each'] !== undefined && { forEach: String(s['for-each']) }),
    ...(s['max-parallel'] !== undefined && { maxParallel: s['max-parallel'] }),
    // Only when set: existing manifests normalise (and hash) as before.
    ...(s['protected-paths'] === 'allow' && { allowProtectedPaths: true as const }),
    ...(Array.isArray(s['protected-paths']) && { allowProtectedPaths: (s['protected-paths'] as unknown[]).map(String) }),
    ...(s['max-items'] !== undefined && { maxItems: s['max-items'] }),
    ...(s['no-changes'] === 'succeed' && { noChanges: 'succeed' as const }),
    ...(s.network !== undefined && { network: s.network === 'off' || s.network === 'default' ? s.network : { allow: stringList(s.network?.allow) } }),
    ...(s.sandbox !== undefined && { sandbox: s.sandbox }),
  };
  switch (kind) {
    case 'agent':
      return { ...base, kind, agent: s.agent, prompt: s.prompt, ...(s.outputs !== undefined && { outputs: s.outputs }) };
    case 'run':
      return { ...base, kind, run: s.run, ...(s.outputs !== undefined && { outputs: s.outputs }) };
    case 'ask': {
      const a: Raw = s.ask;
      return { ...base, kind, questions: a.questions, ...(a['timeout-hours'] !== undefined && { timeoutHours: a['timeout-hours'] }) };
    }
    case 'review': {
      const r: Raw = s.review;
      return {
        ...base,
        kind,
        agent: r.agent,
        maxRounds: r['max-rounds'] ?? 3,
        ...(r.verdicts !== undefined && { verdicts: r.verdicts }),
        ...(r.fix !== undefined && { fix: r.fix }),
        ...(r.prompt !== undefined && { prompt: r.prompt }),
      };
    }
    case 'checks': {
      const c: Raw = s.checks;
      return {
        ...base,
        kind,
        names: c.names,
        maxRounds: c['max-rounds'] ?? 2,
        local: stringMap(c.local),
        withoutApproval: c['without-approval'] === true,
        ...(c['timeout-minutes'] !== undefined && { timeoutMinutes: c['timeout-minutes'] }),
        ...(c.fix !== undefined && { fix: c.fix }),
        ...(c.workflow !== undefined && { workflow: c.workflow }),
      };
    }
    case 'approve': {
      const a: Raw = s.approve ?? {};
      return { ...base, kind, roles: (a.roles as Role[] | undefined) ?? [...runRoles], ...(a.message !== undefined && { message: a.message }) };
    }
    case 'pull-request': {
      const p: Raw = s['pull-request'];
      return {
        ...base,
        kind,
        title: p.title,
        draft: p.draft ?? true,
        labels: p.labels ?? [],
        ...(p.body !== undefined && { body: p.body }),
        ...(p.base !== undefined && { base: p.base }),
      };
    }
    case 'label': {
      const l: Raw = s.label;
      return { ...base, kind, add: Array.isArray(l.add) ? l.add.map(String) : String(l.add), labels: stringList(l.labels) };
    }
  }
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.map(String) : [];
}

/** `limits`: kebab-case keys to camelCase, `none` to null (no limit); absent keys stay absent (the defaults apply). */
function normalizeLimits(v: Raw): LimitsSpec {
  const out: LimitsSpec = {};
  for (const [key, name] of [['cpu-seconds', 'cpuSeconds'], ['memory-mb', 'memoryMb'], ['processes', 'processes']] as const) {
    if (v?.[key] !== undefined) out[name] = v[key] === 'none' ? null : Number(v[key]);
  }
  return out;
}

function stringMap(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object') return {};
  return Object.fromEntries(Object.entries(v as Raw).map(([k, x]) => [k, String(x)]));
}
