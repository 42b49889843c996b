// Starting a run from a label or a `/baton <workflow>` comment: the workflow comes from
// the default branch; the starter's permission is looked up and decided here, before the
// engine: a refused start claims nothing and costs one reply through the stranger door.
import { sanitizeUntrusted } from '../../engine/untrusted.ts';
import { admitsAuthor, describeRoles, listsBot, type Json, type TriggerKind } from '../../engine/index.ts';
import type { Role, Workflow } from '../../manifest/types.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { permissionOf } from '../../hosts/github/permission.ts';
import { replyOnce } from '../replies.ts';
import { cancelsInProgress, supersedeOlder } from '../supersede.ts';
import { withinDailyBudget } from '../daily-budget.ts';
import { standingOf } from '../../hosts/github/stranger-door.ts';
import type { Log, RunService } from '../runs.ts';
import { keptLength, MAX_THREAD_TEXT_CHARS, threadTooLong } from '../too-long.ts';
import type { GiveWay } from '../opened-with-label.ts';

export interface Thread {
  number: number;
  isPull: boolean;
  title: string;
  body: string | null;
  url: string;
}

export interface StartRequest {
  workflow: Workflow;
  hash: string;
  manifestCommit: string;
  thread: Thread;
  actor: string;
  actorIsBot: boolean;
  /** The actor's permission when already looked up (a comment's author). */
  permission?: Role | 'none';
  inputs: Record<string, Json>;
  key: string;
  /** Where the run branch starts (a pull request's head); absent: the default branch at the manifests' commit. */
  base?: { branch: string; sha: string };
  /** An event or schedule started the run: its author is admitted by `on.<event>.authors`, silently refused otherwise. */
  trigger?: TriggerKind;
  /** A fork's pull request (`forks: review`): the run is a fork run (RunRequested.fork). */
  fork?: true;
  /** The start gives way to a run of the workflow already on the thread (a thread opened with its label: opened-with-label.ts). */
  giveWay?: GiveWay;
}

export async function startRun(runs: RunService, gh: RepoContext, req: StartRequest, log: Log): Promise<void> {
  if (req.trigger !== undefined) return startAutomatic(runs, gh, req, req.trigger, log);
  if (req.actorIsBot && !listsBot(req.workflow.on.bots, req.actor)) {
    log.info(`ignored ${req.actor}: bots start \`${req.workflow.name}\` only when listed in on.bots`);
    return;
  }
  // A bot has no repository permission to look up (GitHub answers 404): the engine admits
  // a listed one by name.
  const permission = req.actorIsBot ? 'none' : (req.permission ?? (await permissionOf(gh, req.actor)));
  const who = standingOf(req.actor, permission, req.workflow.on.roles, req.workflow.on.bots);
  if (who.stranger) {
    // The engine would refuse too, but only after claiming a generation for the reply.
    const text = `@${req.actor}, starting \`${req.workflow.name}\` needs ${describeRoles(req.workflow.on.roles)}; yours is \`${permission}\`. Nothing was run.`;
    await replyOnce(gh, req.thread.number, `${req.key}/reply`, text, who);
    return;
  }
  const text = { number: req.thread.number, title: sanitizeUntrusted(req.thread.title), body: sanitizeUntrusted(req.thread.body ?? ''), url: req.thread.url };
  const length = keptLength(text.title, text.body);
  // Text the record cannot hold is refused here, with the limit.
  if (length > MAX_THREAD_TEXT_CHARS) {
    await replyOnce(gh, req.thread.number, `${req.key}/too-long`, threadTooLong(req.actor, req.thread.isPull, length), who);
    return;
  }
  await request(runs, gh, req, permission, text, log);
}

/**
 * A run an event or schedule starts: the manifest's act. An author `on.<event>.authors` does
 * not admit is refused without a word (no claim, no write): an event asked nobody for a reply.
 */
async function startAutomatic(runs: RunService, gh: RepoContext, req: StartRequest, trigger: TriggerKind, log: Log): Promise<void> {
  const permission = trigger === 'schedule' || req.actorIsBot ? 'none' : (req.permission ?? (await permissionOf(gh, req.actor)));
  if (!admitsAuthor(req.workflow.on, trigger, req.actor, permission)) {
    log.info(`ignored ${trigger} by ${req.actor}: on.${trigger}.authors of \`${req.workflow.name}\` does not admit them`);
    return;
  }
  const text = { number: req.thread.number, title: sanitizeUntrusted(req.thread.title), body: sanitizeUntrusted(req.thread.body ?? ''), url: req.thread.url };
  // Nobody asked, so nobody is told "too long": the run starts with the text cut, and says so in what it keeps.
  const cut = '\n\n[baton: the rest of this text was cut: it is longer than a run record holds]';
  let kept = text.body.length;
  while (keptLength(text.title, text.body) > MAX_THREAD_TEXT_CHARS && kept > 0) {
    kept = Math.floor(kept * 0.9);
    text.body = text.body.slice(0, kept) + cut;
  }
  await request(runs, gh, req, permission, text, log);
}

async function request(runs: RunService, gh: RepoContext, req: StartRequest, permission: Role | 'none', text: { number: number; title: string; body: string; url: string }, log: Log): Promise<void> {
  const at = runs.now();
  // The door of every start: `budget.per-day` (daily-budget.ts) lets it through or refuses it.
  await withinDailyBudget(runs, gh, req, permission, at, log, async (dayCostLeftUsd) => {
    const run = await runs.start(
    gh,
    req.workflow,
    {
      type: 'run.requested',
      key: req.key,
      at,
      workflow: req.workflow.name,
      manifestHash: req.hash,
      manifestCommit: req.manifestCommit,
      inputs: req.inputs,
      thread: { kind: req.thread.isPull ? 'pull' : 'issue', number: req.thread.number },
      ...(req.thread.isPull ? { pr: text } : { issue: text }),
      repo: { owner: gh.owner, name: gh.repo, defaultBranch: gh.defaultBranch },
      baseBranch: req.base?.branch ?? gh.defaultBranch,
      baseSha: req.base?.sha ?? req.manifestCommit,
      actor: req.actor,
      permission,
      ...(req.trigger !== undefined && { trigger: req.trigger }),
      ...(req.fork && { fork: true as const }),
      ...(dayCostLeftUsd !== undefined && { dayCostLeftUsd }),
    },
    log,
    req.giveWay,
    );
    // A newer run of the workflow on the thread supersedes the older ones (concurrency.cancel-in-progress).
    if (run && cancelsInProgress(req.workflow, req.trigger)) {
      await supersedeOlder(runs, gh, { workflow: req.workflow, run, head: req.base?.sha ?? req.manifestCommit, key: req.key, actor: req.actor, permission }, log);
    }
    return run;
  });
}

