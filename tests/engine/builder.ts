// Test workflows as plain normalised `Workflow` objects (what the loader produces):
// defaults applied and `needs` filled in (a step without explicit needs waits for the
// step above it).
import type {
  AgentStep,
  ApproveStep,
  AskStep,
  ChecksStep,
  LabelStep,
  PullRequestStep,
  ReviewStep,
  RunStep,
  Step,
  Workflow,
} from '../../src/manifest/types.ts';

type Loose<S extends Step> = Omit<Partial<S>, 'kind' | 'id' | 'needs'> & { needs?: string[] };
/** A step before `workflow()` fills in `needs`. */
type Draft = Omit<Step, 'needs'> & { needs?: string[] };

function base(id: string) {
  return { id, name: id, retries: 0, writes: true, env: {} };
}

export const agent = (id: string, o: Loose<AgentStep> = {}): Draft =>
  ({ ...base(id), kind: 'agent', agent: 'coder', prompt: `Do ${id}`, ...o }) as Draft;

export const run = (id: string, o: Loose<RunStep> = {}): Draft => ({ ...base(id), kind: 'run', run: `make ${id}`, ...o }) as Draft;

export const ask = (id: string, o: Loose<AskStep> = {}): Draft =>
  ({ ...base(id), kind: 'ask', writes: false, questions: ['Which endpoint?'], ...o }) as Draft;

export const review = (id: string, o: Loose<ReviewStep> = {}): Draft =>
  ({ ...base(id), kind: 'review', writes: false, agent: 'reviewer', maxRounds: 2, ...o }) as Draft;

export const checks = (id: string, o: Loose<ChecksStep> = {}): Draft =>
  ({ ...base(id), kind: 'checks', writes: false, names: ['test'], maxRounds: 2, local: {}, ...o }) as Draft;

export const approve = (id: string, o: Loose<ApproveStep> = {}): Draft =>
  ({ ...base(id), kind: 'approve', writes: false, roles: ['admin', 'maintain'], ...o }) as Draft;

export const pullRequest = (id: string, o: Loose<PullRequestStep> = {}): Draft =>
  ({ ...base(id), kind: 'pull-request', writes: false, title: 'Fix #${{ issue.number }}', draft: true, labels: [], ...o }) as Draft;

export const label = (id: string, o: Loose<LabelStep> = {}): Draft =>
  ({ ...base(id), kind: 'label', writes: false, add: ['bug'], labels: ['bug'], ...o }) as Draft;

export function workflow(steps: Draft[], o: Partial<Omit<Workflow, 'steps'>> = {}): Workflow {
  return {
    name: 'wf',
    on: { labels: [], commands: ['wf'], roles: ['admin', 'maintain', 'write'], bots: [] },
    inputs: {},
    agents: {
      coder: { uses: 'claude-code', model: 'm', timeoutMinutes: 30, env: {} },
      reviewer: { uses: 'codex', env: {} },
    },
    budget: {},
    ...o,
    steps: steps.map((s, i) => ({ ...s, needs: s.needs ?? (i === 0 ? [] : [steps[i - 1]!.id]) }) as Step),
  };
}
