// What `baton init` writes, decided before anything touches the disk, so that a refusal
// (files that exist, without --force) leaves the repository exactly as it was.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { shellQuote } from '../hosts/local/host.ts';
import { loadWorkflowText } from '../manifest/load.ts';
import { triggerLabels, type TriggerLabel } from '../manifest/trigger-labels.ts';
import type { Backend, Workflow } from '../manifest/types.ts';
import { forRepository, type LibraryWorkflow } from './library.ts';
import { batonWorkflow, secretsOf, workerWorkflow } from './workflows.ts';
import { eventSubscriptions, type EventSubscriptions } from './event-subscriptions.ts';

export interface InitOptions {
  mode: 'app' | 'actions';
  workflows: LibraryWorkflow[];
  actionRef: string;
  /** The release a pinned `actionRef` is (its `# vX.Y.Z` comment). */
  actionVersion?: string;
  appToken: boolean;
  /**
   * What baton.yml subscribes to (Actions-only mode), given the manifests this plan writes:
   * the command derives it from every manifest of the repository (repo-manifests.ts).
   * Default: from the manifests this plan writes alone.
   */
  subscriptions?: (manifests: InitFile[]) => EventSubscriptions;
}

export interface InitFile {
  path: string;
  text: string;
}

export interface InitPlan {
  files: InitFile[];
  /** Secret names to add to the repository (never values). */
  secrets: string[];
  /** The labels that start the workflows written (the App creates them; Actions-only mode cannot). */
  labels: TriggerLabel[];
  /** The workflows written, parsed (what starts them, for the closing hint). */
  workflows: Workflow[];
}

export function planInit(o: InitOptions): InitPlan {
  const backends = [...new Set(o.workflows.flatMap((w) => w.backends))] as Backend[];
  const files: InitFile[] = o.workflows.map((w) => ({ path: `.agents/workflows/${w.name}.yml`, text: forRepository(w.text, o.actionRef) }));
  const manifests = files.flatMap((f): Workflow[] => {
    const loaded = loadWorkflowText(f.path, f.text).loaded;
    return loaded ? [loaded.workflow] : [];
  });
  const subscriptions = o.subscriptions ? o.subscriptions([...files]) : eventSubscriptions(manifests);
  const wf = { mode: o.mode, actionRef: o.actionRef, ...(o.actionVersion ? { actionVersion: o.actionVersion } : {}), backends, appToken: o.appToken && o.mode === 'actions', subscriptions };
  files.push({ path: '.github/workflows/baton-worker.yml', text: workerWorkflow(wf) });
  if (o.mode === 'actions') files.push({ path: '.github/workflows/baton.yml', text: batonWorkflow(wf) });
  const secrets = secretsOf(backends);
  if (o.mode === 'actions') secrets.push('BATON_STATE_SECRET');
  if (wf.appToken) secrets.push('APP_ID', 'APP_PRIVATE_KEY');
  return { files, secrets, labels: triggerLabels(manifests), workflows: manifests };
}

/** The `gh label create` command of a label; a name that starts with `-` goes after `--`, so gh cannot take it for an option. */
export function ghLabelCreate(label: TriggerLabel): string {
  const options = `--color ${label.color} --description ${shellQuote(label.description)}`;
  return label.name.startsWith('-') ? `gh label create ${options} -- ${shellQuote(label.name)}` : `gh label create ${shellQuote(label.name)} ${options}`;
}

/** Files of the plan that exist already. */
export function conflicts(root: string, plan: InitPlan): string[] {
  return plan.files.map((f) => f.path).filter((p) => existsSync(join(root, p)));
}

export function writePlan(root: string, plan: InitPlan): void {
  for (const f of plan.files) {
    const target = join(root, f.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.text);
  }
}
