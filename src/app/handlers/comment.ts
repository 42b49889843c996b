// `issue_comment.created`, on issues and on pull requests: `/baton …` commands, and answers
// to a run's open questions — only a comment that quote-replies the question or starts with
// `/baton answer` (hosts/github/questions.ts); any other comment changes nothing. Who asks is decided here, before the engine:
// what someone without the role for it asks for never becomes an engine event (it would claim
// a generation and rewrite the status comment); its only effect is a reply through the
// stranger door (hosts/github/stranger-door.ts), which rations it.
import { toMermaid } from '../../manifest/graph.ts';
import { didYouMean, q } from '../../manifest/diagnostics.ts';
import type { Workflow } from '../../manifest/types.ts';
import { describeRoles, isAllowed, isTerminal, type RetryRequested, type RunEvent, type RunState } from '../../engine/index.ts';
import type { ApproveStep, Role } from '../../manifest/types.ts';
import { restoreRunBranch } from '../../hosts/github/run-branches.ts';
import { BUILTINS, USAGE, editedSincePosted, parseCommentCommand, type CommentCommand, type Posted } from '../../hosts/github/comment-command.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { brokenFor, byCommand, defaultBranchHead, loadManifests, validWorkflows } from '../../hosts/github/manifests.ts';
import { permissionOf } from '../../hosts/github/permission.ts';
import { answerForm, answersFor, type AnswerForm } from '../../hosts/github/questions.ts';
import { notRunPull } from '../../hosts/github/run-id.ts';
import { replyOnce, reportBrokenManifest } from '../replies.ts';
import { dailySpendText } from '../daily-budget.ts';
import { acknowledge, standingOf, type Standing } from '../../hosts/github/stranger-door.ts';
import type { Log, RunService } from '../runs.ts';
import { answerTooLong, keptLength, MAX_ANSWER_CHARS } from '../too-long.ts';
import { startRun, type Thread } from './start.ts';

export interface Commented extends Posted {
  thread: Thread;
  commentId: number;
  body: string;
  author: string;
  authorIsBot: boolean;
  key: string;
  /** The run a PR belongs to (from its body), when the comment is on baton's PR. */
  pullRunId: string | undefined;
  /**
   * The run the comment was written to, when the host knows better than "the thread's newest":
   * the catch-up handles a comment late, maybe after a newer run started in the thread.
   */
  forRun?: string;
  /**
   * Every older comment meant for the run was settled before this one (the catch-up goes oldest
   * first): its event settles each comment up to this id (RunState.commentsUpTo).
   */
  settles?: number;
}

export async function onComment(runs: RunService, gh: RepoContext, ev: Commented, log: Log): Promise<void> {
  if (ev.author.toLowerCase() === gh.botLogin.toLowerCase()) return;
  // The one door for every comment, whoever read it (a delivery, the Actions-only catch-up).
  if (editedSincePosted(ev)) return onEdited(gh, ev);
  const command = parseCommentCommand(ev.body);
  if (!command || command.kind === 'answer') {
    // Not every comment in a waiting run's thread is an answer: only one in an answer's form.
    const form = answerForm(ev.body);
    if (form && !ev.authorIsBot) await answer(runs, gh, ev, form, log);
    return;
  }
  if (ev.authorIsBot && command.kind !== 'start') return; // bots may only start workflows that list them
  // A bot has no repository permission to look up (GitHub answers 404): the workflow admits a listed one by name.
  const asker: Asker = { login: ev.author, permission: ev.authorIsBot ? 'none' : await permissionOf(gh, ev.author) };
  await acknowledge(gh, standingOf(ev.author, asker.permission), { comment: ev.commentId });
  const reply = (body: string) => replyTo(gh, ev, standingOf(ev.author, asker.permission), body);
  switch (command.kind) {
    case 'help':
      return reply(`@${ev.author}, here is what baton understands.\n\n${await helpText(gh)}`);
    case 'invalid':
      return reply(`@${ev.author}, ${command.message}.\n\n${USAGE}`);
    case 'start':
    case 'plan':
      return startOrPlan(runs, gh, ev, asker, command, log);
    default:
      return onRunCommand(runs, gh, ev, asker, command, log);
  }
}

/**
 * A comment written again after it was posted: its body may be anyone's with write access, under
 * its author's name, so it does nothing. Its author is told once (the reply's marker is the
 * comment's key: a redelivery or the next catch-up posts nothing more) — they may have fixed a
 * typo and wait for baton, or their words were changed by someone else and they should know.
 * A remark that asks nothing costs nothing; a person without a role is rationed by the door.
 */
async function onEdited(gh: RepoContext, ev: Commented): Promise<void> {
  if (ev.authorIsBot) return;
  const command = parseCommentCommand(ev.body);
  if (!command && !answerForm(ev.body)) return;
  const what = command && command.kind !== 'answer' ? 'command' : 'answer';
  const who = standingOf(ev.author, await permissionOf(gh, ev.author));
  await replyTo(gh, ev, who, `@${ev.author}, comment ${ev.commentId} was edited after it was posted, so baton did nothing with it: it acts on a comment only as it was first posted (anyone with write access can edit anyone's comment). To give this ${what}, post it as a new comment.`);
}

/** The comment's author and their repository permission, looked up once per comment. */
interface Asker {
  login: string;
  permission: Role | 'none';
}

/** A reply to the comment's author, through the stranger door (rationed when `who` is a stranger). */
function replyTo(gh: RepoContext, ev: Commented, who: Standing, body: string, key = ev.key): Promise<void> {
  return replyOnce(gh, ev.thread.number, key, body, who);
}

async function helpText(gh: RepoContext): Promise<string> {
  const set = await loadManifests(gh, await defaultBranchHead(gh));
  const lines = validWorkflows(set).map((w) => `- \`${w.name}\`: ${[...w.on.commands.map((c) => `\`/baton ${c}\``), ...w.on.labels.map((l) => `label ${q(l)}`)].join(', ') || 'no trigger'}${w.description ? ` — ${w.description}` : ''}`);
  return `**baton commands**\n${USAGE}\n\n**Workflows of this repository**\n${lines.join('\n') || '(none in `.agents/workflows`)'}`;
}

async function startOrPlan(runs: RunService, gh: RepoContext, ev: Commented, asker: Asker, command: Extract<CommentCommand, { kind: 'start' | 'plan' }>, log: Log): Promise<void> {
  const sha = await defaultBranchHead(gh);
  const set = await loadManifests(gh, sha);
  const found = byCommand(set, command.workflow);
  const who = standingOf(ev.author, asker.permission);
  if (!found) {
    if (ev.authorIsBot) return; // a bot's typo is nobody's to read
    const broken = brokenFor(set, command.workflow);
    if (broken && broken.file.replace(/^.*\//, '').replace(/\.ya?ml$/, '') === command.workflow) return reportBrokenManifest(gh, ev.thread.number, broken, sha, ev.key, who);
    const known = [...validWorkflows(set).flatMap((w) => w.on.commands), ...BUILTINS];
    return replyTo(gh, ev, who, `@${ev.author}, \`/baton ${command.workflow}\` is not a command here${didYouMean(command.workflow, known)}\n\n${USAGE}`);
  }
  if (command.kind === 'plan') return replyTo(gh, ev, who, `@${ev.author}, here is the plan.\n\n${planText(found.workflow, command.inputs)}`);
  await startRun(runs, gh, { workflow: found.workflow, hash: found.hash, manifestCommit: sha, thread: ev.thread, actor: ev.author, actorIsBot: ev.authorIsBot, permission: asker.permission, inputs: command.inputs, key: ev.key }, log);
}

function planText(workflow: Workflow, inputs: Record<string, string>): string {
  const steps = workflow.steps.map((s, i) => `${i + 1}. \`${s.id}\` (${s.kind})${s.needs.length ? ` after ${s.needs.map(q).join(', ')}` : ''}${s.if ? ` if \`${s.if}\`` : ''}`);
  const given = Object.entries(inputs).map(([k, v]) => `\`${k}=${v}\``).join(' ') || 'none';
  return `**Plan of \`${workflow.name}\`** (nothing was started; inputs: ${given})\n\n${steps.join('\n')}\n\n\`\`\`mermaid\n${toMermaid(workflow, {})}\n\`\`\``;
}

/**
 * Why a comment cannot talk to the run it names: a PR whose body says "Opened by baton run X"
 * belongs to run X only when it is the PR run X recorded (anyone can write that body).
 */
function foreignPull(gh: RepoContext, ev: Commented, state: RunState): string | undefined {
  return ev.pullRunId === undefined ? undefined : notRunPull(gh, state, ev.thread.number);
}

/** The run a comment talks about: the PR's run, else the newest run of the thread. */
async function runOf(runs: RunService, gh: RepoContext, ev: Commented, log: Log): Promise<string | undefined> {
  if (ev.pullRunId) return ev.pullRunId;
  if (ev.forRun) return ev.forRun;
  return (await runs.runsOfThread(gh, ev.thread.number, log)).at(-1);
}

async function onRunCommand(runs: RunService, gh: RepoContext, ev: Commented, asker: Asker, command: CommentCommand, log: Log): Promise<void> {
  const runId = await runOf(runs, gh, ev, log);
  const who = standingOf(ev.author, asker.permission);
  // The day's spend of budgeted workflows, for people with a role (a stranger's ask costs no reads of the day).
  const spend = command.kind === 'status' && !who.stranger ? await dailySpendText(gh, runs.now()) : '';
  if (!runId) return replyTo(gh, ev, who, `@${ev.author}, there is no baton run in this thread.${spend}`);
  const at = Date.now();
  await runs.onRun(
    gh,
    runId,
    async (memory, workflow): Promise<RunEvent[]> => {
      const foreign = foreignPull(gh, ev, memory.state);
      if (foreign) {
        await replyTo(gh, ev, who, `@${ev.author}, this pull request says it was opened by baton run \`${runId}\`, but ${foreign}: nothing was done.`);
        return [];
      }
      if (command.kind === 'status') {
        // Looking is also a chance to catch up: worker runs whose webhook never came are looked up.
        memory.warm = false;
        const title = memory.body.split('\n').find((l) => l.startsWith('### ')) ?? `run \`${runId}\``;
        await replyTo(gh, ev, who, `@${ev.author}, ${title.replace(/^### /, '')}\n\nThe status comment is kept up to date${memory.commentId ? ` (comment ${memory.commentId})` : ''}.${spend}`);
        return [];
      }
      if (command.kind !== 'cancel' && command.kind !== 'approve' && command.kind !== 'retry') return [];
      // The role is decided here: a refusal changes nothing in the run, claims nothing, and costs one rationed reply.
      const refusal = refusalOf(memory.state, workflow, command.kind, asker);
      if (refusal) {
        await replyTo(gh, ev, standingOf(ev.author, asker.permission, refusal.roles), `@${ev.author}, ${refusal.text}`);
        return [];
      }
      const base = { key: ev.key, at, actor: ev.author, permission: asker.permission, ...settling(ev) };
      if (command.kind === 'cancel') return [{ type: 'cancel.requested', ...base }];
      if (command.kind === 'approve') return [{ type: 'approval.given', ...base }];
      return retryEvents(gh, ev, memory.state, workflow, { ...base, step: command.step, ...(command.raise && { raise: command.raise }) });
    },
    log,
  );
}

/** The mark a comment's one event carries (one only: a second event of it would read as applied). */
function settling(ev: Commented): { commentsUpTo?: number } {
  return ev.settles === undefined ? {} : { commentsUpTo: ev.settles };
}

/** The approve steps running now, in workflow order (the first is the one `/baton approve` passes). */
function runningApprovals(state: RunState, workflow: Workflow): ApproveStep[] {
  return workflow.steps.filter((s): s is ApproveStep => s.kind === 'approve' && state.steps.some((st) => st.id === s.id && st.status === 'running'));
}

/**
 * Why someone may not do what they asked, decided before the engine (which would refuse too,
 * but only after claiming the run and recording the event): the text of the refusal and the
 * roles that would have been enough. `/baton approve` with nothing waiting is answered only to
 * people with the workflow's roles; to anyone else it is a refusal like any other.
 */
function refusalOf(state: RunState, workflow: Workflow, kind: 'cancel' | 'approve' | 'retry', asker: Asker): { text: string; roles: readonly Role[] } | undefined {
  const step = kind === 'approve' ? runningApprovals(state, workflow)[0] : undefined;
  const roles = step?.roles ?? workflow.on.roles;
  if (isAllowed(asker.permission, roles)) return undefined;
  const what = kind === 'cancel' ? 'cancelling this run' : kind === 'retry' ? 'retrying a step' : step ? `approving step \`${step.id}\`` : 'approving a step of this run';
  return { text: `${what} needs ${describeRoles(roles)}; yours is \`${asker.permission}\`.`, roles };
}

/**
 * A retry of a finished run goes on from its run branch: one deleted with its pull request
 * (run-branches.ts) is made again first — only for someone the retry will be allowed for, since
 * it is a write — or, when GitHub will not have it, the thread is told why and what to do.
 */
async function retryEvents(gh: RepoContext, ev: Commented, state: RunState, workflow: Workflow, retry: Omit<RetryRequested, 'type'>): Promise<RunEvent[]> {
  const event: RunEvent = { type: 'retry.requested', ...retry };
  if (!isTerminal(state.status) || !isAllowed(retry.permission, workflow.on.roles)) return [event];
  const branch = await restoreRunBranch(gh, state);
  if (branch.refused) {
    await replyTo(gh, ev, standingOf(ev.author, retry.permission, workflow.on.roles), `@${ev.author}, run \`${state.runId}\` cannot be retried: ${branch.refused}. Start a new run instead (the workflow's label or \`/baton\` command, as for this one).`);
    return [];
  }
  if (!branch.head) return [event];
  return [{ type: 'run-branch.updated', key: `${ev.key}/run-branch`, at: retry.at, from: state.head!, head: branch.head }, event];
}

/**
 * The run answers are for: the PR's run on a run's PR; else the run the answer names (the
 * quoted question's, or `/baton answer <run-id>`'s) when it is one of this thread's; else the
 * thread's newest run (answersFor then finds the names do not match).
 */
async function answeredRun(runs: RunService, gh: RepoContext, ev: Commented, form: AnswerForm, log: Log): Promise<string | undefined> {
  if (ev.pullRunId) return ev.pullRunId;
  const ofThread = await runs.runsOfThread(gh, ev.thread.number, log);
  return form.runId !== undefined && ofThread.includes(form.runId) ? form.runId : (ev.forRun ?? ofThread.at(-1));
}

async function answer(runs: RunService, gh: RepoContext, ev: Commented, form: AnswerForm, log: Log): Promise<void> {
  const runId = await answeredRun(runs, gh, ev, form, log);
  // `/baton answer` was said to baton, and is told why nothing happened; a quote-reply that answers nothing may be talk about the question.
  const told = form.via === 'command';
  if (!runId) {
    if (told) await replyTo(gh, ev, standingOf(ev.author, await permissionOf(gh, ev.author)), `@${ev.author}, there is no baton run in this thread.`);
    return;
  }
  await runs.onRun(
    gh,
    runId,
    async (memory, workflow): Promise<RunEvent[]> => {
      const foreign = foreignPull(gh, ev, memory.state);
      if (foreign) {
        log.warn(`comment ${ev.commentId} on #${ev.thread.number} is no answer to run ${runId}: ${foreign}`);
        return [];
      }
      // A redelivery (or another replica's copy) of an answer already applied: the question it closed is not open any more, and that is no news to tell.
      if (memory.state.appliedKeys.includes(ev.key)) return [];
      const found = answersFor(form, memory.state);
      if ('none' in found && !told) return [];
      const permission = await permissionOf(gh, ev.author);
      const who = standingOf(ev.author, permission, workflow.on.roles);
      if ('none' in found) {
        await replyTo(gh, ev, who, `@${ev.author}, ${found.none}: nothing was answered.`, `${ev.key}/no-answer`);
        return [];
      }
      if (who.stranger) {
        // Decided before the engine: the question stays open, nothing is claimed or rewritten.
        await replyTo(gh, ev, who, `@${ev.author}, thanks — but answers to baton's questions count only from people with ${describeRoles(workflow.on.roles)}.`, `${ev.key}/refusal`);
        return [];
      }
      const { step, answers } = found;
      const length = keptLength(...answers.filter((a): a is string => a !== null));
      if (length > MAX_ANSWER_CHARS) {
        // Too long to keep in the record: say so; the question stays open.
        await replyTo(gh, ev, who, answerTooLong(ev.author, length), `${ev.key}/too-long`);
        return [];
      }
      return [{ type: 'questions.answered', key: ev.key, at: Date.now(), step, answers, actor: ev.author, permission, ...settling(ev) }];
    },
    log,
  );
}
