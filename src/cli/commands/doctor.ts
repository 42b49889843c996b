// `baton doctor [--json]`
import { parseArgs } from 'node:util';
import { checkBackends, checkGit, type BackendReport } from '../../agents/doctor.ts';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACTIONS_PR_ADVICE } from '../../hosts/github/actions-settings.ts';
import { ACTIONS_ONLY_WORKFLOW, tokenWarningsIn, usesJobToken } from '../../manifest/warn-token.ts';
import { findWorkflowFiles, validateFiles } from '../../manifest/validate.ts';
import { sandboxLines } from '../../manifest/network.ts';
import { localProtections, PROTECTION_NAMES } from '../../agents/sandbox/attempt.ts';
import { pinWarningsIn, WORKER_WORKFLOW } from '../../manifest/warn-pins.ts';
import { filesWarning } from '../../compat.ts';
import { subscriptionWarningsIn } from '../../manifest/warn-subscriptions.ts';
import { pushCiWarningsIn } from '../../manifest/warn-push-ci.ts';
import { EXIT, UsageError, errorLine, type CliIO } from '../io.ts';
import { GitHubRuns, type GitHubTarget } from '../../mcp/github.ts';
import { ToolError } from '../../mcp/target.ts';
import { loadWorkflowText } from '../../manifest/load.ts';
import { overdueSchedules, type OverdueSchedule } from '../../hosts/github/schedule-claims.ts';
import { printable } from '../../printable.ts';
import { DEFAULT_WORKFLOWS_DIR } from './validate.ts';
import { workflowsRoot } from '../../hosts/local/workflows.ts';
import { startNotes, type StartNote } from './start-notes.ts';

/** The window `--github` looks back over when `--days` is not given. */
const DEFAULT_DAYS = 7;

export const help = `Usage: baton doctor [--json] [--github OWNER/REPO [--days N]]

Lists the agent backends baton can drive and whether each can run here: its CLI on
PATH (with the version it reports) and its credentials (the names of the variables
that are set, never their values). No model is called.

When the repository has ${DEFAULT_WORKFLOWS_DIR} (found from any subfolder), it also says which backends those workflows use
and what their agents may reach in the sandbox (and whether they require it), and
warns about CI that would never start in Actions-only mode, and about the repository
setting that lets GitHub Actions open pull requests, and about a trigger of a workflow that
.github/workflows/baton.yml does not subscribe to (run \`baton update\`). It warns about every \`uses:\` in baton's
workflows (.github/workflows/baton-worker.yml, baton.yml) that is not pinned to a full commit SHA.
It names each workflow that has no label and no command, the events or schedule that start
it on GitHub, and the \`baton run --local\` line that runs it on demand.

With --github OWNER/REPO, it also reads the repository on GitHub and lists the workflows
whose schedule (on.schedule, from the default branch) says they should have run in the last
N days (default ${DEFAULT_DAYS}) and did not: the ticks after the last one baton took (its claim refs
under refs/baton/schedule/, one listing for the whole repository), counting a tick only once it
is an hour late (GitHub delays scheduled runs when busy). Ticks baton took but could not run
(budget.per-day, a refusal from GitHub) were said on the workflow's tracking issue. Needs a token
that can read the repository in GITHUB_TOKEN or GH_TOKEN (GITHUB_API_URL for GitHub Enterprise Server).

Options:
  --json                print one JSON document
  --github OWNER/REPO   also list the schedules that did not run on GitHub
  --days N              the window for --github (default ${DEFAULT_DAYS})
  -h, --help

Exit status: 0 (whatever is missing), 1 GitHub refused a read, 2 usage error.`;

interface WorkflowUse {
  backends: Map<string, string[]>;
  /** What each workflow's agents may reach in the sandbox (network.ts sandboxLines), by workflow. */
  sandbox: Map<string, string[]>;
  /** Workflows no label or command starts, and what does (start-notes.ts). */
  starts: StartNote[];
}

/** Which backends the repository's workflows use, by workflow; nothing when there are none. */
function workflowUse(cwd: string): WorkflowUse {
  const use: WorkflowUse = { backends: new Map(), sandbox: new Map(), starts: [] };
  const { files } = findWorkflowFiles([DEFAULT_WORKFLOWS_DIR], cwd);
  if (!files.length) return use;
  const report = validateFiles(files, { cwd });
  use.starts = startNotes(report.files.map((f) => ({ file: f.file, workflow: f.loaded?.workflow })), cwd);
  for (const f of report.files) {
    const wf = f.loaded?.workflow;
    if (!wf) continue;
    for (const agent of Object.values(wf.agents)) use.backends.set(agent.uses, [...new Set([...(use.backends.get(agent.uses) ?? []), wf.name])]);
    use.sandbox.set(wf.name, sandboxLines(wf));
  }
  return use;
}

function credentialText(r: BackendReport): string {
  const c = r.credentials;
  if (!c.needed.length) return 'none needed';
  const found = [...c.present, ...c.logins.map((l) => `login in ~/${l}`)];
  const hints = c.notEnough.filter(() => !c.ok).map((n) => `; ${n.name} is set, but ${n.advice}`).join('');
  // A backend's own reason the credentials that are set cannot work (a classic token for copilot…).
  if (c.problem) return `${found.join(', ') || 'none usable'}: ${c.problem}`;
  return found.length ? found.join(', ') : `none set (needs one of ${c.needed.join(', ')})${hints}`;
}

export async function doctorCommand(args: string[], io: CliIO, env: NodeJS.ProcessEnv = process.env, now: () => number = Date.now): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' }, github: { type: 'string' }, days: { type: 'string' } }, allowPositionals: false, strict: true });
  const github = repoTarget(values.github);
  const days = windowDays(values.days, github !== undefined);
  let schedules: OverdueSchedule[] | undefined;
  if (github) {
    try {
      schedules = await overdueOnGitHub(github, env, now(), days);
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      io.err(errorLine('doctor', printable(err.message)));
      return EXIT.failed;
    }
  }
  const [backends, git] = await Promise.all([checkBackends(env, io.cwd), checkGit(env, io.cwd)]);
  // The repository's root, also from a subfolder of it (where .agents/workflows is).
  const root = workflowsRoot(io.cwd) ?? io.cwd;
  const use = workflowUse(root);
  // The GITHUB_TOKEN gotcha (docs/actions-only.md): the same check as the Action's validate mode.
  const warnings = tokenWarningsIn(root).map((w) => `${w.message} (${w.file}:${w.line}:${w.column})`);
  // Actions-only mode with GITHUB_TOKEN: the repository setting its pull requests need (not readable from here).
  const batonYml = join(root, ACTIONS_ONLY_WORKFLOW);
  if (usesJobToken(existsSync(batonYml) ? readFileSync(batonYml, 'utf8') : undefined)) warnings.push(`${ACTIONS_PR_ADVICE} (${ACTIONS_ONLY_WORKFLOW})`);
  // Actions-only mode: a manifest's trigger baton.yml's `on:` lacks, a cron no manifest uses (the validate mode says the same).
  warnings.push(...subscriptionWarningsIn(root).map((w) => `${w.message} (${w.file}:${w.line}:${w.column})`));
  // The repository's push CI that would run agent-written code on baton's branches with its secrets (validate says the same).
  warnings.push(...pushCiWarningsIn(root).map((w) => `${w.message} (${w.file}:${w.line}:${w.column})`));
  // Actions in baton's workflows by tag, not commit (the Action's validate mode says the same).
  warnings.push(...pinWarningsIn(root).map((w) => w.message));
  // Workers of files this baton would refuse (compat.ts): said here before a run is refused.
  const worker = join(root, WORKER_WORKFLOW);
  const versionWarning = existsSync(worker) ? filesWarning(WORKER_WORKFLOW, readFileSync(worker, 'utf8')) : null;
  if (versionWarning) warnings.push(versionWarning);
  // What the sandbox can put in force for a local run here (each protection tried, not assumed).
  const protections = localProtections(env);

  if (values.json) {
    const overdue = schedules?.map((o) => ({ workflow: o.workflow, cron: o.cron, lastTaken: o.lastTaken === null ? null : new Date(o.lastTaken).toISOString(), missed: o.missed.length, more: o.more, first: new Date(o.missed[0]!).toISOString(), last: new Date(o.missed.at(-1)!).toISOString() }));
    io.out(JSON.stringify({ backends: backends.map((b) => ({ ...b, usedBy: use.backends.get(b.name) ?? [] })), git, sandbox: Object.fromEntries(use.sandbox), starts: use.starts, protections, warnings, ...(overdue && { schedules: { repository: `${github!.owner}/${github!.repo}`, days, didNotRun: overdue } }) }, null, 2));
    return EXIT.ok;
  }

  const lines = ['baton doctor: agent backends on this machine (no model is called)', ''];
  const width = Math.max(...backends.map((b) => b.name.length));
  for (const b of backends) {
    const why = !b.runnable ? (b.path === null ? `\`${b.binary}\` is not on PATH` : 'no credentials') : '';
    lines.push(`${b.runnable ? '✓' : '✗'} ${b.name.padEnd(width)}  ${b.runnable ? 'runnable' : `not runnable: ${why}`}`);
    if (b.binary === null) lines.push(`    program      the agent's \`run:\` (checked when a step starts)`);
    else lines.push(`    binary       ${b.path ? `${b.path} — ${b.version}` : `not found (install: ${b.install})`}`);
    if (b.pinned) lines.push(`    version      ${b.pinned}`);
    lines.push(`    credentials  ${credentialText(b)}`);
    const users = use.backends.get(b.name);
    if (users) lines.push(`    used by      ${users.join(', ')}${b.runnable ? '' : ' (fine if the worker job installs it and passes its secret)'}`);
  }
  lines.push('', `${git.path ? '✓' : '✗'} ${'git'.padEnd(width)}  ${git.path ? `${git.path} — ${git.version}` : 'not on PATH: workers need git to list what an agent changed'}`);
  lines.push('', 'sandbox protections for local runs on this machine (docs/security.md, "Isolation")');
  for (const p of protections.enforced) lines.push(`  ✓ ${PROTECTION_NAMES[p]}`);
  for (const m of protections.missing) lines.push(`  ✗ ${PROTECTION_NAMES[m.protection]}: ${m.reason}`);
  if (use.sandbox.size) {
    lines.push('', 'sandbox: what the workflows\' agents and run steps may reach (docs/manifest.md, "Network and sandbox")');
    for (const [wf, entries] of use.sandbox) lines.push(`  ${wf}`, ...entries.map((e) => `    ${e}`));
  }
  if (use.starts.length) lines.push('', 'workflows that no label or command starts', ...use.starts.map((n) => `  ${n.message} (${n.file}:${n.line})`));
  if (schedules) lines.push('', ...scheduleLines(github!, days, schedules));
  if (warnings.length) lines.push('', ...warnings.map((w) => `warning: ${w}`));
  const n = backends.filter((b) => b.runnable).length;
  lines.push('', `${n} of ${backends.length} backends runnable here.`);
  io.out(lines.join('\n'));
  return EXIT.ok;
}

const DAY_MS = 86_400_000;

function repoTarget(text: string | undefined): GitHubTarget | undefined {
  if (text === undefined) return undefined;
  const m = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(text);
  if (!m) throw new UsageError(`--github takes OWNER/REPO (for example acme/widgets), not ${JSON.stringify(text)}`);
  return { owner: m[1]!, repo: m[2]!, number: null };
}

function windowDays(text: string | undefined, github: boolean): number {
  if (text === undefined) return DEFAULT_DAYS;
  if (!github) throw new UsageError('--days is the window of --github OWNER/REPO');
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 366) throw new UsageError(`--days takes a whole number of days from 1 to 366, not ${JSON.stringify(text)}`);
  return n;
}

/** The repository's schedules (its manifests on the default branch) against the ticks baton took. */
async function overdueOnGitHub(t: GitHubTarget, env: NodeJS.ProcessEnv, now: number, days: number): Promise<OverdueSchedule[]> {
  const gh = new GitHubRuns(env);
  const files = await gh.workflowFiles(t);
  const workflows = files.flatMap((f) => {
    const wf = loadWorkflowText(f.path, f.text).loaded?.workflow;
    return wf?.on.schedule ? [wf] : [];
  });
  if (!workflows.length) return [];
  return overdueSchedules(workflows, await gh.scheduleClaims(t), now, days * DAY_MS);
}

const minute = (t: number) => new Date(t).toISOString().slice(0, 16).replace('T', ' ');

function scheduleLines(t: GitHubTarget, days: number, overdue: OverdueSchedule[]): string[] {
  const head = `schedules on ${t.owner}/${t.repo} that should have run in the last ${days} day${days === 1 ? '' : 's'} and did not`;
  if (!overdue.length) return [`${head}: none`];
  return [
    `${head} (UTC):`,
    ...overdue.map((o) => {
      const n = `${o.more ? 'more than ' : ''}${o.missed.length} tick${o.missed.length === 1 && !o.more ? '' : 's'}`;
      const span = o.missed.length === 1 ? minute(o.missed[0]!) : `${minute(o.missed[0]!)} … ${minute(o.missed.at(-1)!)}`;
      const last = o.lastTaken === null ? 'baton has taken no tick of it' : `the last tick baton took: ${minute(o.lastTaken)}`;
      return printable(`  ✗ ${o.workflow}  \`${o.cron}\`: ${n} did not run (${span}); ${last}`);
    }),
    '  (App mode: is the App running? Actions-only: is baton.yml enabled and its `on.schedule` up to date — `baton update`? GitHub turns schedules off in a repository without activity for 60 days.)',
  ];
}
