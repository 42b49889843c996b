// The baton MCP server (the domain, without a transport): tools for a local agent to
// list and validate workflows, start runs, read them, answer, approve, cancel, and wait.
// Every tool takes a target (a local path, or a GitHub repository + issue/PR number).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { batonVersion } from '../names.ts';
import { parseRunId } from '../hosts/github/run-id.ts';
import { z } from 'zod';
import type { Json, LimitRaise } from '../engine/index.ts';
import { raiseFlagWords } from '../engine/raise-flags.ts';

/** A step id as the manifest has it (schema `stepId`): nothing else reaches the comment a retry posts. */
const STEP_ID = /^[A-Za-z][A-Za-z0-9_-]*$/;
import { GitHubRuns } from './github.ts';
import { LocalRuns } from './local.ts';
import { fingerprint, runShape, type RunView } from './summary.ts';
import { needNumber, resolveTarget, targetShape, ToolError, type Target, type TargetArgs } from './target.ts';

export interface ServerOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Diagnostics (stderr for stdio: stdout carries the protocol). */
  log?: (line: string) => void;
  /** How often baton_wait looks again (ms): local records, GitHub comments. */
  pollMs?: { local: number; github: number };
}


const workflowShape = z.object({ name: z.string(), description: z.string().nullable(), source: z.string(), file: z.string(), inputs: z.record(z.string(), z.unknown()) });
const validateShape = { valid: z.boolean(), files: z.array(z.object({ file: z.string(), valid: z.boolean(), errors: z.array(z.string()) })) };
const commentShape = z.object({ commentId: z.number(), url: z.string() }).nullable();
const actionShape = { run: runShape.nullable(), comment: commentShape, message: z.string() };
const inputValue = z.union([z.string(), z.number(), z.boolean()]);

const READ = { readOnlyHint: true, openWorldHint: true } as const;

/**
 * How long baton_wait waits unless asked: under the 60 s a request gets by default in MCP
 * clients (the TypeScript SDK's DEFAULT_REQUEST_TIMEOUT_MSEC; progress notifications do
 * not extend it unless the client opts in with resetTimeoutOnProgress), so that a client
 * with default settings gets the run back instead of a "Request timed out" error.
 */
export const WAIT_DEFAULT_SECONDS = 45;
/** The longest wait a caller may ask for, for clients configured with a longer timeout. */
export const WAIT_MAX_SECONDS = 600;

function done(structured: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

function failure(err: unknown): CallToolResult {
  const known = err instanceof ToolError || (err instanceof Error && /Error$/.test(err.name) && err.name !== 'Error' && err.name !== 'TypeError');
  const message = err instanceof Error ? err.message : String(err);
  return { isError: true, content: [{ type: 'text', text: known ? message : `baton could not do this: ${message}` }] };
}

function describeRun(v: RunView): string {
  const lines = [`run ${v.runId} (${v.workflow}): ${v.status}${v.reason ? ` — ${v.reason}` : ''}`];
  for (const s of v.steps) lines.push(`- ${s.id}: ${s.status}${s.attempt > 1 ? ` (attempt ${s.attempt})` : ''}${s.reason ? ` — ${s.reason}` : ''}`);
  for (const w of v.waiting) {
    if (w.kind === 'ask') lines.push(`waiting for answers at ${w.step}:`, ...w.open.map((i) => `  ${i + 1}. ${w.questions[i]}`), 'answer with baton_answer (answers in the order of the questions)');
    else lines.push(`waiting for approval at ${w.step}${w.message ? `: ${w.message}` : ''}; approve with baton_approve`);
  }
  if (v.prCommand) lines.push(`open the pull request with: ${v.prCommand}`);
  if (v.url) lines.push(v.url);
  return lines.join('\n');
}

export function buildServer(options: ServerOptions = {}): { server: McpServer; local: LocalRuns } {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const poll = options.pollMs ?? { local: 200, github: Number(env.BATON_MCP_POLL_MS) || 3000 };
  const local = new LocalRuns(env, log);
  const github = new GitHubRuns(env);
  const server = new McpServer({ name: 'baton', version: batonVersion() }, { instructions: 'baton runs multi-step AI agent workflows (.agents/workflows/*.yml) on GitHub or on a local checkout. Start with baton_list_workflows; after baton_start_run, call baton_wait until the run finishes or waits for answers (baton_answer) or an approval (baton_approve).' });

  const target = (args: TargetArgs): Target => resolveTarget(args, cwd);
  const tool = <A extends TargetArgs>(fn: (args: A, t: Target, extra: Extra) => Promise<CallToolResult>) => async (args: A, extra: Extra): Promise<CallToolResult> => {
    try {
      return await fn(args, target(args), extra);
    } catch (err) {
      return failure(err);
    }
  };

  server.registerTool(
    'baton_list_workflows',
    {
      title: 'List workflows',
      description: 'The workflows a target can run: a local repository\'s .agents/workflows/ plus baton\'s bundled library, or a GitHub repository\'s .agents/workflows/. With their inputs.',
      inputSchema: targetShape,
      outputSchema: { workflows: z.array(workflowShape) },
      annotations: READ,
    },
    tool(async (_a, t) => {
      const workflows = t.kind === 'local' ? local.listWorkflows(t.path) : await github.listWorkflows(t);
      return done({ workflows }, workflows.map((w) => `${w.name} (${w.source})${w.description ? `: ${w.description}` : ''}`).join('\n') || 'no workflows');
    }),
  );

  server.registerTool(
    'baton_validate',
    {
      title: 'Validate workflows',
      description: 'Checks workflow manifests (YAML, schema, step graph, expressions) and returns file:line:col errors. Local: .agents/workflows/, or one named workflow; GitHub: the default branch\'s .agents/workflows/.',
      inputSchema: { ...targetShape, workflow: z.string().optional().describe('Local only: one workflow name or manifest path to check.') },
      outputSchema: validateShape,
      annotations: READ,
    },
    tool(async (a: TargetArgs & { workflow?: string | undefined }, t) => {
      const report = t.kind === 'local' ? local.validate(t.path, a.workflow) : await github.validate(t);
      const errors = report.files.flatMap((f) => f.errors);
      return done(report, report.valid ? `${report.files.length} workflow file(s) valid` : errors.join('\n'));
    }),
  );

  server.registerTool(
    'baton_start_run',
    {
      title: 'Start a run',
      description:
        'Starts a workflow. Local: runs on the checkout in worktrees and branches baton/<run>, in the background (the user\'s branch and files are untouched). GitHub: posts `/baton <workflow> key=value…` on the issue/PR as the token\'s user, so the App checks their permission and the thread records who asked. ' +
        'A run bound to a pull request (e.g. `review-pr`): give `pr` — on GitHub the pull request\'s number (the command is posted on it; a number that is an issue is refused), locally a branch, which stands in for the pull request (the run starts from its head; `base` names the branch it would merge into, default the default branch). ' +
        'Workflows started by events or a schedule on GitHub (pull_request, issues, workflow_run, schedule) start here only when they have a command (`on.commands`, by default the workflow\'s name).',
      inputSchema: {
        ...targetShape,
        workflow: z.string().min(1).describe('Workflow name (or, locally, a manifest path).'),
        inputs: z.record(z.string(), inputValue).optional().describe('Workflow inputs. Locally, `issue` stands in for the issue text when the workflow has no such input (its first line the title, the rest the body).'),
        pr: z
          .union([z.number().int().positive(), z.string().min(1)])
          .optional()
          .describe('The pull request the run is bound to. GitHub: its number (instead of `number`). Local: a branch of the repository, as the pull request (pr.title, pr.body from its commits).'),
        base: z.string().min(1).optional().describe('Local, with `pr`: the branch the pull request would merge into (default: the default branch).'),
      },
      outputSchema: actionShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    tool(async (a: TargetArgs & { workflow: string; inputs?: Record<string, string | number | boolean> | undefined; pr?: number | string | undefined; base?: string | undefined }, t) => {
      const inputs = (a.inputs ?? {}) as Record<string, Json>;
      if (t.kind === 'local') {
        if (typeof a.pr === 'number') throw new ToolError(`locally \`pr\` names a branch (the pull request's head), not a number`);
        if (a.pr !== undefined && 'pr' in inputs) throw new ToolError('give the branch once: as `pr`, or as `inputs.pr`');
        const run = await local.start(t.path, a.workflow, a.pr === undefined ? inputs : { ...inputs, pr: a.pr }, a.base);
        return done({ run, comment: null, message: `started ${run.runId}` }, `${describeRun(run)}\ncall baton_wait with runId ${run.runId} to follow it`);
      }
      if (typeof a.pr === 'string') throw new ToolError('on GitHub `pr` is the pull request\'s number; a branch names a pull request only locally (`path`)');
      if (a.base !== undefined) throw new ToolError('`base` is for local runs: on GitHub the pull request has its base');
      if (a.pr !== undefined && t.number !== null && t.number !== a.pr) throw new ToolError(`\`number\` (${t.number}) and \`pr\` (${a.pr}) name different threads: give one`);
      const number = a.pr ?? needNumber(t, 'starting a run');
      if (a.pr !== undefined) await github.assertPullRequest(t, number);
      const body = github.startCommand(a.workflow, inputs);
      const comment = await github.comment(t, number, body);
      return done({ run: null, comment, message: `posted "${body}"` }, `posted "${body}" on ${t.owner}/${t.repo}#${number} (${comment.url}); the App answers with a status comment: call baton_wait or baton_get_run`);
    }),
  );

  server.registerTool(
    'baton_get_run',
    {
      title: 'Get a run',
      description: 'A run\'s status, steps and what it waits for. Local: from .baton/runs/<run>/. GitHub: parsed from the status comment on the issue/PR (only the App bot\'s, BATON_APP_LOGIN, default baton[bot]). Without runId: the latest run.',
      inputSchema: { ...targetShape, runId: z.string().optional() },
      outputSchema: { run: runShape, ignored: z.array(z.string()) },
      annotations: READ,
    },
    tool(async (a: TargetArgs & { runId?: string | undefined }, t) => {
      if (t.kind === 'local') {
        const run = local.get(t.path, a.runId);
        return done({ run, ignored: [] }, describeRun(run));
      }
      const { ignored, ...run } = await github.get(t, needNumber(t, 'reading a run'), a.runId);
      return done({ run, ignored }, [describeRun(run), ...ignored].join('\n'));
    }),
  );

  server.registerTool(
    'baton_list_runs',
    {
      title: 'List runs',
      description: 'The runs of a local repository, or the runs recorded on a GitHub issue/PR.',
      inputSchema: targetShape,
      outputSchema: { runs: z.array(runShape), ignored: z.array(z.string()) },
      annotations: READ,
    },
    tool(async (_a, t) => {
      const { runs, ignored } = t.kind === 'local' ? { runs: local.list(t.path), ignored: [] } : await github.runs(t, needNumber(t, 'listing runs'));
      return done({ runs, ignored }, runs.map((r) => `${r.runId} (${r.workflow}): ${r.status}`).join('\n') || 'no runs');
    }),
  );

  const runIdArg = { runId: z.string().min(1).describe('The run (see baton_list_runs). GitHub: informative; the command applies to the thread\'s run.') };

  server.registerTool(
    'baton_answer',
    {
      title: 'Answer questions',
      description: 'Answers the open questions of a run\'s ask step, in the order of the questions ("" leaves one open), and lets the run go on. GitHub: posted by the token\'s user as a `/baton answer <run-id>` comment with the answers numbered.',
      inputSchema: { ...targetShape, runId: z.string().min(1).describe('The run (see baton_list_runs). GitHub: the comment names it, so the answers reach that run even when the thread holds several.'), answers: z.array(z.string()).min(1) },
      outputSchema: actionShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    tool(async (a: TargetArgs & { runId: string; answers: string[] }, t) => {
      if (t.kind === 'local') {
        const run = await local.answer(t.path, a.runId, a.answers);
        return done({ run, comment: null, message: 'answered' }, describeRun(run));
      }
      // The App takes only a quote-reply of its question or `/baton answer` as answers (docs/manifest.md); naming the run picks it among the thread's.
      if (!parseRunId(a.runId)) throw new ToolError(`\`${a.runId}\` is not a run id (like \`fix-issue-12-1\`; see baton_list_runs)`);
      const numbered = a.answers.map((x, i) => (x.trim() ? `${i + 1}. ${x}` : '')).filter(Boolean).join('\n');
      const body = `/baton answer ${a.runId}\n${numbered}`;
      const comment = await github.comment(t, needNumber(t, 'answering'), body);
      return done({ run: null, comment, message: 'answer posted' }, `answer posted: ${comment.url}`);
    }),
  );

  server.registerTool(
    'baton_approve',
    {
      title: 'Approve a step',
      description: 'Approves the approve step a run waits at. GitHub: posts `/baton approve` as the token\'s user (the App checks their role).',
      inputSchema: { ...targetShape, ...runIdArg },
      outputSchema: actionShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    tool(async (a: TargetArgs & { runId: string }, t) => {
      if (t.kind === 'local') {
        const run = await local.approve(t.path, a.runId);
        return done({ run, comment: null, message: 'approved' }, describeRun(run));
      }
      const comment = await github.comment(t, needNumber(t, 'approving'), '/baton approve');
      return done({ run: null, comment, message: 'approval posted' }, `posted /baton approve: ${comment.url}`);
    }),
  );

  server.registerTool(
    'baton_resume',
    {
      title: 'Resume a step with a raised limit',
      description:
        'Retries a finished step with its limits raised — by default (local runs) the step a turn, time or cost limit stopped — starting from the work it kept. ' +
        "Raises hold within the workflow's `budget.raise-to`; past it nothing is retried and the run's reply names the cap. " +
        'GitHub: posts `/baton retry <step> --budget +$N --minutes +N --turns +N` as the token\'s user (the App checks their role); `step` is required there.',
      inputSchema: {
        ...targetShape,
        ...runIdArg,
        step: z.string().regex(STEP_ID, 'a step id: a letter, then letters, digits, - and _').optional().describe('The step to retry. Local default: the step a limit stopped.'),
        budgetUsd: z.number().positive().max(999_999).optional().describe("US dollars added to the run's max-cost-usd (cents at most)."),
        minutes: z.number().int().positive().max(999_999).optional().describe("Minutes added to the step's time limit."),
        turns: z.number().int().positive().max(999_999).optional().describe("Turns added to the step's agent's max-turns."),
      },
      outputSchema: actionShape,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    tool(async (a: TargetArgs & { runId: string; step?: string; budgetUsd?: number; minutes?: number; turns?: number }, t) => {
      if (a.budgetUsd !== undefined && Math.abs(Math.round(a.budgetUsd * 100) - a.budgetUsd * 100) > 1e-6) throw new ToolError('`budgetUsd` is in dollars and cents: at most two decimals');
      const raise: LimitRaise = { ...(a.budgetUsd !== undefined && { costUsd: a.budgetUsd }), ...(a.minutes !== undefined && { minutes: a.minutes }), ...(a.turns !== undefined && { turns: a.turns }) };
      if (t.kind === 'local') {
        const run = await local.resume(t.path, a.runId, a.step, raise);
        return done({ run, comment: null, message: 'retried' }, describeRun(run));
      }
      if (a.step === undefined) throw new ToolError('name the step to retry (`step`): on GitHub the command names it');
      const body = ['/baton retry', a.step, ...raiseFlagWords(raise)].join(' ');
      const comment = await github.comment(t, needNumber(t, 'retrying'), body);
      return done({ run: null, comment, message: 'retry posted' }, `posted ${body}: ${comment.url}`);
    }),
  );

  server.registerTool(
    'baton_cancel',
    {
      title: 'Cancel a run',
      description: 'Cancels a run: running workers are stopped, nothing more is started. Work already on the run\'s branches stays. GitHub: posts `/baton cancel`.',
      inputSchema: { ...targetShape, ...runIdArg },
      outputSchema: actionShape,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    tool(async (a: TargetArgs & { runId: string }, t) => {
      if (t.kind === 'local') {
        const run = await local.cancel(t.path, a.runId);
        return done({ run, comment: null, message: `run ${run.runId} ${run.status}` }, describeRun(run));
      }
      const comment = await github.comment(t, needNumber(t, 'cancelling'), '/baton cancel');
      return done({ run: null, comment, message: 'cancel posted' }, `posted /baton cancel: ${comment.url}`);
    }),
  );

  server.registerTool(
    'baton_wait',
    {
      title: 'Wait for a run',
      description: `Waits until the run changes (its status, a step's status, or what it waits for) or the timeout passes, then returns it; returns at once when the run has finished or waits for an answer or approval. Waits at most ${WAIT_DEFAULT_SECONDS} s by default, less than the 60 s MCP clients give a request by default. To wait longer, call baton_wait again (each call returns the run as it is), or pass timeoutSeconds (up to ${WAIT_MAX_SECONDS}) when your client allows requests that long. Sends progress notifications while waiting when the request carries a progressToken.`,
      inputSchema: {
        ...targetShape,
        runId: z.string().optional().describe('Default: the latest run of the target.'),
        timeoutSeconds: z.number().positive().max(WAIT_MAX_SECONDS).optional().describe(`Default ${WAIT_DEFAULT_SECONDS}; more only when the MCP client's request timeout is longer (60 s by default).`),
      },
      outputSchema: { run: runShape.nullable(), changed: z.boolean(), timedOut: z.boolean() },
      annotations: READ,
    },
    tool(async (a: TargetArgs & { runId?: string | undefined; timeoutSeconds?: number | undefined }, t, extra) => {
      const read = async (): Promise<RunView | null> => {
        try {
          if (t.kind === 'local') return local.get(t.path, a.runId);
          const { ignored: _ignored, ...run } = await github.get(t, needNumber(t, 'waiting for a run'), a.runId);
          return run;
        } catch (err) {
          // On GitHub the App may not have written its status comment yet: keep waiting.
          if (t.kind === 'github' && err instanceof ToolError && /no baton status comment|no run/.test(err.message)) return null;
          throw err;
        }
      };
      const timeout = (a.timeoutSeconds ?? WAIT_DEFAULT_SECONDS) * 1000;
      const every = t.kind === 'local' ? poll.local : poll.github;
      const start = Date.now();
      const first = await read();
      const before = fingerprint(first);
      const token = extra._meta?.progressToken;
      let current = first;
      let ticks = 0;
      while (Date.now() - start < timeout && !extra.signal.aborted) {
        // Finished, or waiting for the caller: nothing will change until they act.
        if (first && (['succeeded', 'failed', 'cancelled', 'stopped'].includes(first.status) || first.waiting.length > 0)) break;
        await new Promise((r) => setTimeout(r, every));
        current = await read();
        if (fingerprint(current) !== before) break;
        if (token !== undefined) {
          ticks++;
          const running = current?.steps.filter((s) => s.status === 'running').map((s) => s.id) ?? [];
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: ticks, message: current ? `${current.runId}: ${current.status}${running.length ? `, running ${running.join(', ')}` : ''}` : 'waiting for the run to appear' },
          });
        }
      }
      const changed = fingerprint(current) !== before;
      const timedOut = !changed && Date.now() - start >= timeout;
      return done({ run: current, changed, timedOut }, current ? `${describeRun(current)}${timedOut ? `\n(no change in ${timeout / 1000} s; call baton_wait again to keep waiting, or pass timeoutSeconds up to ${WAIT_MAX_SECONDS} if your MCP client allows requests that long)` : ''}` : 'no run yet');
    }),
  );

  return { server, local };
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
