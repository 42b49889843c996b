// `baton init [--mode app|actions] [--workflows a,b] [--force] [--repo DIR] [--action-ref R] [--app-token]`
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { ACTIONS_PR_ADVICE } from '../../hosts/github/actions-settings.ts';
import { libraryWorkflows, type LibraryWorkflow } from '../../init/library.ts';
import { conflicts, ghLabelCreate, planInit, writePlan, type InitFile, type InitPlan } from '../../init/plan.ts';
import { subscriptionsIn } from '../../init/repo-manifests.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { ACTION_REF, batonVersion, docsUrl } from '../../names.ts';
import { INIT_BASE_FILE, writeInitBase } from '../../init/base.ts';
import { startHint } from '../../init/start-hint.ts';
import { batonAction, type BatonAction } from '../../release-pin.ts';
import { FULL_SHA } from '../../init/action-pins.ts';

export const help = `Usage: baton init [--mode app|actions] [--workflows a,b] [--force] [--repo DIR]
                  [--action-ref OWNER/REPO@REF] [--app-token]

Sets a repository up for baton:
  .agents/workflows/<name>.yml         workflows from baton's library
  .github/workflows/baton-worker.yml   the worker workflow baton dispatches for each step
  .github/workflows/baton.yml          (--mode actions) runs baton from GitHub Actions
                                       alone, no App to host
  ${INIT_BASE_FILE}              what init wrote, for \`baton update\`

Options:
  --mode app|actions    app (default): the baton GitHub App drives runs; actions: no server
  --workflows a,b       library workflows to add (default fix-issue; asked when on a terminal)
  --app-token           (actions) act with a GitHub App token (secrets APP_ID,
                        APP_PRIVATE_KEY) so that CI starts on run branches
  --action-ref REF      the baton Action to use (default: the commit this release of baton
                        was tagged at, \`baton-dev/baton@<sha> # vX.Y.Z\`; a checkout of
                        baton's repository has no such pin and writes ${ACTION_REF})
  --repo DIR            the repository (default: the current directory)
  --force               overwrite files that exist
  -h, --help

Every \`uses:\` it writes is pinned to a full commit SHA with a version comment
(\`# vX.Y.Z\`), which Dependabot's github-actions updates keep current.

Exit status: 0 written, 1 files exist (nothing written), 2 usage error.`;

/**
 * The warning for a baton Action reference that is not a full commit SHA, or none. A tag moves:
 * whoever can push to the Action's repository changes what the write jobs run.
 */
export function unpinnedActionWarning(action: BatonAction, given: boolean): string | undefined {
  const ref = action.ref.replace(/^.*@/, '');
  if (FULL_SHA.test(ref)) return undefined;
  return given
    ? `warning: --action-ref ${action.ref} is not a full commit SHA: the workflows run whatever that ref points at when they start. Pin a commit (owner/repo@<40-hex sha>) unless this is a fork you control.`
    : `warning: this copy of baton carries no release pin (a checkout of baton's repository, not a published package): the workflows use the moving tag ${action.ref}. Pin it with --action-ref ${action.ref.replace(/@.*$/, '')}@<commit sha>, or install baton from npm.`;
}

/** Manifests whose triggers baton.yml cannot serve, because they do not load. */
export function unloadedWarning(command: string, invalid: string[]): string {
  return `warning: baton ${command}: ${invalid.join(', ')} ${invalid.length === 1 ? 'does' : 'do'} not load (\`baton validate\` says why): .github/workflows/baton.yml does not subscribe to ${invalid.length === 1 ? 'its' : 'their'} triggers; run \`baton update\` once ${invalid.length === 1 ? 'it loads' : 'they load'}`;
}

async function choose(library: LibraryWorkflow[], io: CliIO): Promise<string[]> {
  io.out(['Workflows in baton\'s library:', ...library.map((w, i) => `  ${i + 1}. ${w.name.padEnd(20)} ${w.description}`)].join('\n'));
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question('Which ones (numbers or names, comma-separated) [fix-issue]: ')).trim();
    if (!answer) return ['fix-issue'];
    return answer.split(/[\s,]+/).filter(Boolean).map((a) => (/^\d+$/.test(a) ? library[Number(a) - 1]?.name ?? a : a));
  } finally {
    rl.close();
  }
}

function report(plan: InitPlan, mode: string, appToken: boolean, io: CliIO, root: string): void {
  const lines = [`baton init (${mode} mode) wrote in ${root}:`, ...plan.files.map((f) => `  ${f.path}`), `  ${INIT_BASE_FILE} (what init wrote: \`baton update\` merges from it; commit it too)`, ''];
  if (plan.secrets.length) {
    lines.push('Add these repository secrets (Settings → Secrets and variables → Actions):', ...plan.secrets.map((s) => `  ${s}`), '');
  }
  if (mode === 'actions' && !appToken) lines.push(`Before the first run: ${ACTIONS_PR_ADVICE}`, '');
  if (mode === 'actions' && plan.labels.length) {
    // The App creates these itself; in Actions-only mode nothing runs before the first label.
    lines.push('Create the labels that start the workflows (GitHub CLI, in the repository):', ...plan.labels.map((l) => `  ${ghLabelCreate(l)}`), '');
  }
  lines.push(
    mode === 'actions'
      ? `Commit the files to the default branch. About CI on run branches: ${docsUrl('actions-only.md#the-github_token-gotcha')}`
      : `Commit the files to the default branch and install the baton GitHub App on the repository: ${docsUrl('app.md#run-it')}`,
    startHint(plan.workflows),
  );
  io.out(lines.join('\n'));
}

export async function initCommand(args: string[], io: CliIO, interactive: boolean = Boolean(process.stdin.isTTY)): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      mode: { type: 'string' },
      workflows: { type: 'string' },
      force: { type: 'boolean' },
      repo: { type: 'string' },
      'action-ref': { type: 'string' },
      'app-token': { type: 'boolean' },
    },
    allowPositionals: false,
    strict: true,
  });
  const mode = values.mode ?? 'app';
  if (mode !== 'app' && mode !== 'actions') throw new UsageError(`--mode must be app or actions, not ${JSON.stringify(mode)}`);
  if (values['app-token'] && mode !== 'actions') throw new UsageError('--app-token is for --mode actions (the App has its own token)');
  const given = values['action-ref'];
  if (given !== undefined && !/^[^/@\s]+\/[^@\s]+@\S+$/.test(given)) throw new UsageError(`--action-ref must look like owner/repo@ref, not ${JSON.stringify(given)}`);
  const action: BatonAction = given !== undefined ? { ref: given, pinned: FULL_SHA.test(given.replace(/^.*@/, '')) } : batonAction();
  const actionRef = action.ref;
  const root = resolve(io.cwd, values.repo ?? '.');
  if (!existsSync(root)) throw new UsageError(`no such directory: ${root}`);

  const library = libraryWorkflows();
  const names = values.workflows !== undefined ? values.workflows.split(',').map((s) => s.trim()).filter(Boolean) : interactive ? await choose(library, io) : ['fix-issue'];
  const unknown = names.filter((n) => !library.some((w) => w.name === n));
  if (unknown.length) throw new UsageError(`not in baton's library: ${unknown.join(', ')} (there are ${library.map((w) => w.name).join(', ')})`);
  if (!names.length) throw new UsageError('--workflows names no workflow');

  // baton.yml subscribes to what every manifest of the repository needs, not only the ones written here.
  let invalid: string[] = [];
  const subscriptions = (planned: InitFile[]) => {
    const r = subscriptionsIn(root, Object.fromEntries(planned.map((f) => [f.path, f.text])));
    invalid = r.invalid;
    return r.subscriptions;
  };
  const plan = planInit({ mode, workflows: library.filter((w) => names.includes(w.name)), actionRef, ...(action.version ? { actionVersion: action.version } : {}), appToken: values['app-token'] ?? false, subscriptions });
  const existing = conflicts(root, plan);
  if (existing.length && !values.force) {
    io.err(`baton init: these files exist already; nothing was written (--force overwrites them):\n${existing.map((p) => `  ${p}`).join('\n')}`);
    return EXIT.failed;
  }
  writePlan(root, plan);
  writeInitBase(root, {
    version: 1,
    baton: batonVersion(),
    mode,
    workflows: names,
    actionRef,
    actionRefGiven: values['action-ref'] !== undefined,
    appToken: values['app-token'] ?? false,
    files: Object.fromEntries(plan.files.map((f) => [f.path, f.text])),
  });
  report(plan, mode, values['app-token'] ?? false, io, root);
  const unpinned = unpinnedActionWarning(action, given !== undefined);
  if (unpinned) io.err(unpinned);
  if (mode === 'actions' && invalid.length) io.err(unloadedWarning('init', invalid));
  return EXIT.ok;
}
