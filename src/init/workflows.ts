// The GitHub workflow files `baton init` writes (docs/architecture.md, "A worker step"): the worker workflow in both modes;
// in Actions-only mode the worker gets an `apply` job (the write happens there, not in the
// agent's job) and baton.yml handles the events a GitHub App would have received.
import { BACKEND_IMPLS } from '../agents/backends/index.ts';
import type { Backend } from '../manifest/types.ts';
import { GITHUB_ACTION_PINS, pinnedUses } from './action-pins.ts';
import { eventSubscriptions, onBlock, type EventSubscriptions } from './event-subscriptions.ts';
import { FILES_VERSION_VAR, ownStamp } from '../compat.ts';

export interface WorkflowOptions {
  mode: 'app' | 'actions';
  /** `uses:` of the baton Action, e.g. `baton-dev/baton@<sha>` (src/release-pin.ts). */
  actionRef: string;
  /** The release a SHA `actionRef` is, written after it as `# vX.Y.Z`. */
  actionVersion?: string;
  /** Backends the chosen workflows use: their CLIs are installed and their secret passed. */
  backends: Backend[];
  /** Actions-only: act with a GitHub App token (secrets APP_ID, APP_PRIVATE_KEY) so that CI starts on run branches. */
  appToken: boolean;
  /** What baton.yml's `on:` lists for the repository's manifests (event-subscriptions.ts); default: baton's own events only. */
  subscriptions?: EventSubscriptions;
}

/** The secret each backend reads (the first credential it accepts). */
export function secretsOf(backends: Backend[]): string[] {
  return [...new Set(backends.flatMap((b) => BACKEND_IMPLS[b].credentials.slice(0, 1)))].sort();
}

/** The baton Action's `uses:` value, with its version comment when it is a pin. */
function batonUses(o: WorkflowOptions): string {
  return o.actionVersion ? `${o.actionRef} # ${o.actionVersion}` : o.actionRef;
}

/**
 * The agent CLIs, from the lockfiles this Action carries (agent-clis/<backend>/: integrity
 * hashes for the whole tree), with no package script run, into a folder of the job's; pipx
 * for aider. Run by the Action's code from a `run:` step (mode install-clis, which also
 * retries a registry hiccup), after sudo and docker are dropped: a package's code never
 * runs with either. Nothing when no backend needs a CLI.
 */
function installSteps(backends: Backend[]): string[] {
  const clis = [...new Set(backends)].filter((b) => BACKEND_IMPLS[b].install && BACKEND_IMPLS[b].binary).sort();
  if (!clis.length) return [];
  return [
    "      - name: Install agent CLIs from baton's lockfiles, package scripts off",
    `        run: '"$BATON_NODE" "$BATON_ENTRY"'`,
    '        env:',
    '          BATON_NODE: "${{ steps.baton.outputs.node }}"',
    '          BATON_ENTRY: "${{ steps.baton.outputs.entry }}"',
    '          INPUT_MODE: install-clis',
    `          INPUT_CLIS: ${clis.join(' ')}`,
  ];
}

const APP_TOKEN_STEP = [
  '      - id: app-token',
  '        # An App token instead of GITHUB_TOKEN: pushes and PRs made with it start CI.',
  `        uses: ${pinnedUses(GITHUB_ACTION_PINS.appToken)}`,
  '        with: { app-id: "${{ secrets.APP_ID }}", private-key: "${{ secrets.APP_PRIVATE_KEY }}" }',
];

/** `with:` of a run/apply step: the token and who baton is with it. */
/**
 * Actions-only mode has no key only baton holds (any workflow of the repository can comment
 * with the GITHUB_TOKEN), so the state block is signed with a repository secret.
 */
const STATE_SECRET = 'state-secret: "${{ secrets.BATON_STATE_SECRET }}"';

function identity(o: WorkflowOptions, extra: string): string {
  extra = `${extra}, ${STATE_SECRET}`;
  return o.appToken
    ? `        with: { ${extra}, token: "\${{ steps.app-token.outputs.token }}", bot-login: "\${{ steps.app-token.outputs.app-slug }}[bot]" }`
    : `        with: { ${extra} }`;
}

/**
 * The guard of every step that uses sudo (the codex sysctl, the fence, the drop): GitHub's
 * own runner user with its sudoers rule, on an image that has a sudo it can run (`-x`:
 * bash's `command -v` also names a file on PATH it cannot execute). Anything else (a
 * container job, another user) has no sudo of GitHub's to use or to drop.
 */
const RUNNER_WITH_SUDO = '[ -f /etc/sudoers.d/runner ] && [ "$(id -un)" = runner ] && [ -x "$(command -v sudo)" ]';

/**
 * The agent's steps. The runner gives every `uses:` step's process the job's runtime and
 * OIDC request tokens (and the Action its `token` input), and a process's environment is
 * readable by its children through /proc/<pid>/environ: so the baton Action only says
 * where its code is (mode locate), and the worker that starts the agent runs from a `run:`
 * step, which holds no token — the task and mode come as environment variables, never
 * into the script, and the model keys only in this step's env. On GitHub-hosted runners
 * the job's user has passwordless sudo and the docker socket, either of which reads any
 * process's memory: both are dropped first, after the code of the later `uses:` steps and
 * the runner's node are made root's, so the agent cannot rewrite them. The CLIs are
 * installed after that (installSteps).
 */
function agentSteps(batonAction: string, secrets: string[], backends: Backend[]): string[] {
  return [
    '      - id: baton',
    `        uses: ${batonAction}`,
    '        with: { mode: locate, token: "" }',
    ...(backends.includes('codex') ? CODEX_SANDBOX_STEP : []),
    ...FENCE_STEP,
    '      - name: Drop sudo and docker before the agent starts',
    "        if: runner.environment == 'github-hosted' && runner.os == 'Linux'",
    '        env: { BATON_NODE: "${{ steps.baton.outputs.node }}" }',
    '        run: |',
    `          if ${RUNNER_WITH_SUDO}; then`,
    '            # What later `uses:` steps run (the upload holds the runner token) is made read-only to the agent.',
    '            if [ -d "$RUNNER_WORKSPACE/../_actions" ]; then sudo chown -R root:root "$RUNNER_WORKSPACE/../_actions"; fi',
    '            ext="$(dirname "$(dirname "$(dirname "$BATON_NODE")")")"',
    '            if [ "$(basename "$ext")" = externals ]; then sudo chown -R root:root "$ext"; fi',
    '            sudo chmod 0600 /var/run/docker.sock 2>/dev/null || true',
    '            sudo rm /etc/sudoers.d/runner',
    '            sudo -k',
    '            if sudo -n true 2>/dev/null; then echo "::error::sudo is still available to the agent"; exit 1; fi',
    '          fi',
    ...installSteps(backends),
    '      - name: baton agent',
    // exec: the worker itself gets the runner's signals at a timeout or a cancel, not a shell
    // in front of it, so it stops the agent and keeps its partial work for the upload below.
    `        run: 'exec "$BATON_NODE" "$BATON_ENTRY"'`,
    '        env:',
    '          BATON_NODE: "${{ steps.baton.outputs.node }}"',
    '          BATON_ENTRY: "${{ steps.baton.outputs.entry }}"',
    '          INPUT_MODE: agent',
    '          INPUT_TASK: "${{ inputs.task }}"',
    ...secrets.map((s) => `          ${s}: "\${{ secrets.${s} }}"`),
  ];
}

/**
 * The agent sandbox's fence (src/agents/sandbox/setup.ts), as root while sudo is still there:
 * the agent's own user, which the sudoers rule it writes lets the runner become (and nothing
 * else once the next step drops runner's own rule), the packet filter, the permissions, and
 * the folder the CLIs are installed into after the drop (runner's, which the agent can run
 * but not change; BATON_CLI_DIR through GITHUB_ENV).
 * Nothing is installed here (no package manager runs before the drop): a runner image without
 * `nft` (or `useradd`, `sudo`) gets the rest of the fence, and the step's warning, the job
 * summary and the worker's probe name what is missing; `sandbox: required` refuses.
 * The same guard as the drop: GitHub's own runner user with its sudo rule. A self-hosted
 * runner skips the step (`if:`); a hosted Linux job under another user says why it has no fence.
 */
const FENCE_STEP = [
  "      - name: Fence the agent (its own user, a packet filter, limits)",
  "        if: runner.environment == 'github-hosted' && runner.os == 'Linux'",
  '        env: { BATON_NODE: "${{ steps.baton.outputs.node }}", BATON_ENTRY: "${{ steps.baton.outputs.entry }}", INPUT_MODE: sandbox-setup }',
  '        run: |',
  `          if ${RUNNER_WITH_SUDO}; then`,
  '            sudo -E "$BATON_NODE" "$BATON_ENTRY"',
  '          else',
  '            echo "::warning title=baton sandbox::not set up: this job does not run as the runner user with its sudo rule, so the agent runs as the job user, with no packet filter or limits"',
  '          fi',
];

/**
 * codex's sandbox is bubblewrap, which needs unprivileged user namespaces; ubuntu-24.04
 * runners restrict them through AppArmor, so every command codex runs would fail
 * ("bwrap: loopback: Failed RTM_NEWADDR", openai/codex issues #17337, #15057). openai/codex-action
 * lifts the restriction the same way. It needs sudo, so it runs before sudo is dropped.
 */
const CODEX_SANDBOX_STEP = [
  "      - name: Let codex's sandbox (bubblewrap) make user namespaces",
  "        if: runner.environment == 'github-hosted' && runner.os == 'Linux'",
  // The same guard as the sudo drop: only the runner user of a GitHub-hosted image, where the setting exists.
  '        run: |',
  `          if ${RUNNER_WITH_SUDO} && [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then`,
  '            sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
  '          fi',
];

/**
 * The version of baton that wrote the file, for every job of it: the worker puts it in its
 * result, and the run's baton refuses a worker workflow older than it runs (compat.ts).
 * `baton update` moves it with the rest of the file.
 */
function filesVersion(): string[] {
  return [
    '# The baton that wrote this file (baton init, baton update); a baton refuses files older than it runs.',
    `env: { ${FILES_VERSION_VAR}: "${ownStamp().version}" }`,
  ];
}

/** What the run and apply jobs need to drive a run with the job's GITHUB_TOKEN. */
const WRITE_PERMISSIONS = '{ contents: write, issues: write, pull-requests: write, checks: write, actions: write, statuses: read }';

export function workerWorkflow(o: WorkflowOptions): string {
  const secrets = secretsOf(o.backends);
  const actions = o.mode === 'actions';
  const lines = [
    '# baton worker: one step attempt of a baton run, dispatched by baton (never by hand).',
    '# The agent job holds a read-only token and uploads its work as the baton-result artifact;',
    actions ? '# the apply job (contents: write) commits it and advances the run.' : '# the baton App commits it and merges it into the run branch.',
    '# The agent runs from a `run:` step, whose process holds no token the agent could read.',
    'name: baton-worker',
    'run-name: "baton ${{ inputs.run }} ${{ inputs.step }} #${{ inputs.attempt }}"',
    'on:',
    '  workflow_dispatch:',
    '    inputs:',
    '      run: { required: true, description: baton run id }',
    '      step: { required: true, description: step id }',
    '      attempt: { required: true, description: attempt number }',
    '      index: { required: false, default: "", description: for-each index }',
    '      base: { required: true, description: commit the step starts from }',
    '      task: { required: true, description: the step attempt as baton encoded it }',
    'permissions: { contents: read }',
    ...filesVersion(),
    'jobs:',
    '  agent:',
    '    runs-on: ubuntu-latest',
    '    timeout-minutes: 60',
    '    permissions: { contents: read }',
    ...(actions ? ['    outputs: { key: "${{ steps.route.outputs.key }}" }'] : []),
    '    steps:',
    ...(actions ? ['      - id: route', `        uses: ${batonUses(o)}`, '        with: { mode: route }'] : []),
    `      - uses: ${pinnedUses(GITHUB_ACTION_PINS.checkout)}`,
    // The whole history: the worker puts agent configuration back as the run's base had it.
    '        with: { ref: "${{ inputs.base }}", fetch-depth: 0, persist-credentials: false }',
    ...agentSteps(batonUses(o), secrets, o.backends),
    `      - uses: ${pinnedUses(GITHUB_ACTION_PINS.uploadArtifact)}`,
    '        if: always()   # partial work of a crashed or timed-out agent is kept too',
    // Without include-hidden-files, upload-artifact (v4.4+) drops every dotfile and
    // dot-folder: an agent's change to .gitignore or .config/… would vanish from the result.
    '        with: { name: baton-result, path: "${{ runner.temp }}/baton-result", include-hidden-files: true }',
  ];
  if (actions) {
    lines.push(
      '  apply:',
      '    needs: agent',
      '    if: always()',
      '    runs-on: ubuntu-latest',
      '    timeout-minutes: 10',
      '    # One writer per run: the same group as the events of the run in baton.yml.',
      '    concurrency: { group: "baton-${{ needs.agent.outputs.key || inputs.run }}", cancel-in-progress: false }',
      `    permissions: ${WRITE_PERMISSIONS}`,
      '    steps:',
      `      - uses: ${pinnedUses(GITHUB_ACTION_PINS.downloadArtifact)}`,
      '        continue-on-error: true   # no artifact: the apply step reports why the agent left none',
      '        with: { name: baton-result, path: "${{ runner.temp }}/baton-result" }',
      ...(o.appToken ? APP_TOKEN_STEP : []),
      `      - uses: ${batonUses(o)}`,
      identity(o, 'mode: apply, conclusion: "${{ needs.agent.result }}"'),
    );
  }
  return lines.join('\n') + '\n';
}

export function batonWorkflow(o: WorkflowOptions): string {
  return [
    '# baton in Actions-only mode: the events a baton App would receive start this workflow,',
    '# which drives the run (reads its status comment, dispatches workers, opens the PR).',
    'name: baton',
    ...onBlock(o.subscriptions ?? eventSubscriptions([])),
    'permissions: {}',
    ...filesVersion(),
    'jobs:',
    '  route:',
    '    # Which run the event belongs to, for the concurrency group below (no token needed).',
    '    runs-on: ubuntu-latest',
    '    permissions: {}',
    '    outputs: { key: "${{ steps.route.outputs.key }}" }',
    '    steps:',
    '      - id: route',
    `        uses: ${batonUses(o)}`,
    '        with: { mode: route }',
    '  run:',
    '    needs: route',
    "    if: needs.route.outputs.key != ''",
    '    runs-on: ubuntu-latest',
    '    timeout-minutes: 10',
    '    # One writer per run (events of a run share its issue number); never cancel one mid-way.',
    '    concurrency: { group: "baton-${{ needs.route.outputs.key }}", cancel-in-progress: false }',
    `    permissions: ${WRITE_PERMISSIONS}`,
    '    steps:',
    ...(o.appToken ? APP_TOKEN_STEP : []),
    `      - uses: ${batonUses(o)}`,
    identity(o, 'mode: run'),
    '',
  ].join('\n');
}
