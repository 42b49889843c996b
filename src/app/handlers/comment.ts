// `issue_comment.created`, on issues and on pull requests: `/baton …` commands, and
// otherwise answers to a run's open questions.
import { toMermaid } from '../../manifest/graph.ts';
import { didYouMean, q } from '../../manifest/diagnostics.ts';
import type { Workflow } from '../../manifest/types.ts';
import { isAllowed, isTerminal, type RetryRequested, type RunEvent, type RunState } from '../../engine/index.ts';
import { restoreRunBranch } from '../../hosts/github/run-branches.ts';
import { BUILTINS, USAGE, parseCommentCommand, type CommentCommand } from '../../hosts/github/comment-command.ts';
import type { RepoContext } from '../../hosts/github/client.ts';
import { brokenFor, byCommand, defaultBranchHead, loadManifests, validWorkflows } from '../../hosts/github/manifests.ts';
import { permissionOf } from '../../hosts/github/permission.ts';
import { openAsk, parseAnswers } from '../../hosts/github/translate.ts';
import { notRunPull } from '../../hosts/github/run-id.ts';
import { acknowledge, replyOnce, reportBrokenManifest } from '../replies.ts';
import type { Log, RunService } from '../runs.ts';
import { answerTooLong, keptLength, MAX_ANSWER_CHARS } from '../too-long.ts';
import { startRun, type Thread } from './start.ts';

export interface Commented {
  thread: Thread;
  commentId: number;
  body: string;
  author: string;
  authorIsBot: boolean;
  key: string;
  /** The run a PR belongs to (from its body), when the comment is on baton's PR. */
  pullRunId: string | undefined;
}

export async function onComment(runs: RunService, gh: RepoContext, ev: Commented, log: Log): Promise<void> {
  if (ev.author.toLowerCase() === gh.botLogin.toLowerCase()) return;
  const command = parseCommentCommand(ev.body);
  if (!command) {
    if (!ev.authorIsBot) await answer(runs, gh, ev, log);
    return;
  }
  if (ev.authorIsBot && command.kind !== 'start') return; // bots may only start workflows that list them
  await acknowledge(gh, { comment: ev.commentId });
  const reply = (body: string) => replyTo(gh, ev, body);
  switch (command.kind) {
    case 'help':
      return reply(`@${ev.author}, here is what baton understands.\n\n${await helpText(gh)}`);
    case 'invalid':
      return reply(`@${ev.author}, ${command.message}.\n\n${USAGE}`);
    case 'start':
    case 'plan':
      return startOrPlan(runs, gh, ev, command, log);
    default:
      return onRunCommand(runs, gh, ev, command, log);
  }
}

/** A reply to the comment's author (who, without a role, gets only a few per thread and hour). */
function replyTo(gh: RepoContext, ev: Commented, body: string): Promise<void> {
  return replyOnce(gh, ev.thread.number, ev.key, body, ev.author);
}

async function helpText(gh: RepoContext): Promise<string> {
  const set = await loadManifests(gh, await defaultBranchHead(gh));
  const lines = validWorkflows(set).map((w) => `- \`${w.name}\`: ${[...w.on.commands.map((c) => `\`/baton ${c}\``), ...w.on.labels.map((l) => `label ${q(l)}`)].join(', ') || 'no trigger'}${w.description ? ` — ${w.description}` : ''}`);
  return `**baton commands**\n${USAGE}\n\n**Workflows of this repository**\n${lines.join('\n') || '(none in `.agents/workflows`)'}`;
}

async function startOrPlan(runs: RunService, gh: RepoContext, ev: Commented, command: Extract<CommentCommand, { kind: 'start' | 'plan' }>, log: Log): Promise<void> {
  const sha = await defaultBranchHead(gh);
  const set = await loadManifests(gh, sha);
  const found = byCommand(set, command.workflow);
  if (!found) {
    const broken = brokenFor(set, command.workflow);
    if (broken && broken.file.replace(/^.*\//, '').replace(/\.ya?ml$/, '') === command.workflow) return reportBrokenManifest(gh, ev.thread.number, broken, sha, ev.key, ev.author);
    const known = [...validWorkflows(set).flatMap((w) => w.on.commands), ...BUILTINS];
    return replyTo(gh, ev, `@${ev.author}, \`/baton ${command.workflow}\` is not a command here${didYouMean(command.workflow, known)}\n\n${USAGE}`);
  }
  if (command.kind === 'plan') return replyTo(gh, ev, `@${ev.author}, here is the plan.\n\n${planText(found.workflow, command.inputs)}`);
  await startRun(runs, gh, { workflow: found.workflow, hash: found.hash, manifestCommit: sha, thread: ev.thread, actor: ev.author, actorIsBot: ev.authorIsBot, inputs: command.inputs, key: ev.key }, log);
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
  return (await runs.runsOfThread(gh, ev.thread.number, log)).at(-1);
}

async function onRunCommand(runs: RunService, gh: RepoContext, ev: Commented, command: CommentCommand, log: Log): Promise<void> {
  const runId = await runOf(runs, gh, ev, log);
  if (!runId) return replyTo(gh, ev, `@${ev.author}, there is no baton run in this thread.`);
  const at = Date.now();
  await runs.onRun(
    gh,
    runId,
    async (memory, workflow): Promise<RunEvent[]> => {
      const foreign = foreignPull(gh, ev, memory.state);
      if (foreign) {
        await replyOnce(gh, ev.thread.number, ev.key, `@${ev.author}, this pull request says it was opened by baton run \`${runId}\`, but ${foreign}: nothing was done.`);
        return [];
      }
      if (command.kind === 'status') {
        // Looking is also a chance to catch up: worker runs whose webhook never came are looked up.
        memory.warm = false;
        const title = memory.body.split('\n').find((l) => l.startsWith('### ')) ?? `run \`${runId}\``;
        await replyTo(gh, ev, `@${ev.author}, ${title.replace(/^### /, '')}\n\nThe status comment is kept up to date${memory.commentId ? ` (comment ${memory.commentId})` : ''}.`);
        return [];
      }
      const actor = { actor: ev.author, permission: await permissionOf(gh, ev.author) };
      const base = { key: ev.key, at, ...actor };
      if (command.kind === 'cancel') return [{ type: 'cancel.requested', ...base }];
      if (command.kind === 'approve') return [{ type: 'approval.given', ...base }];
      if (command.kind === 'retry') return retryEvents(gh, ev, memory.state, workflow, { ...base, step: command.step });
      return [];
    },
    log,
  );
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
    await replyTo(gh, ev, `@${ev.author}, run \`${state.runId}\` cannot be retried: ${branch.refused}. Start a new run instead (the workflow's label or \`/baton\` command, as for this one).`);
    return [];
  }
  if (!branch.head) return [event];
  return [{ type: 'run-branch.updated', key: `${ev.key}/run-branch`, at: retry.at, from: state.head!, head: branch.head }, event];
}

async function answer(runs: RunService, gh: RepoContext, ev: Commented, log: Log): Promise<void> {
  const runId = await runOf(runs, gh, ev, log);
  if (!runId) return;
  await runs.onRun(
    gh,
    runId,
    async (memory): Promise<RunEvent[]> => {
      const foreign = foreignPull(gh, ev, memory.state);
      if (foreign) {
        log.warn(`comment ${ev.commentId} on #${ev.thread.number} is no answer to run ${runId}: ${foreign}`);
        return [];
      }
      const ask = openAsk(memory.state);
      if (!ask) return [];
      const answers = parseAnswers(ev.body, ask.total, ask.open);
      if (answers.every((a) => a === null)) return [];
      const permission = await permissionOf(gh, ev.author);
      const length = keptLength(...answers.filter((a): a is string => a !== null));
      if (length > MAX_ANSWER_CHARS) {
        // Too long to keep in the record: say so; the question stays open.
        await replyOnce(gh, ev.thread.number, `${ev.key}/too-long`, answerTooLong(ev.author, length), ev.author);
        return [];
      }
      return [{ type: 'questions.answered', key: ev.key, at: Date.now(), step: ask.step, answers, actor: ev.author, permission }];
    },
    log,
  );
}
