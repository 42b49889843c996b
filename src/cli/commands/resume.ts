// `baton resume|answer|approve <run> …`: continue a local run from its events.
import { parseArgs } from 'node:util';
import { localActor } from '../../hosts/local/actor.ts';
import type { RunEvent } from '../../engine/index.ts';
import { LocalRun } from '../../hosts/local/run.ts';
import { answerEvent, approveEvent, openStore, retryEvent } from '../../hosts/local/session.ts';
import { parseRaiseFlags } from '../../engine/raise-flags.ts';
import type { LimitRaise } from '../../engine/index.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { driveToStop, interactiveTerminal, knownError, runOptions } from './local-run.ts';

const common = `Options:
  --repo DIR   the repository (default: the current directory)
  --json       print the final summary as JSON
  -h, --help

Exit status: 0 done, 1 failed, 2 usage error or changed manifest, 3 waiting for input.`;

export const resumeHelp = `Usage: baton resume <run> [--step ID] [--budget +N] [--minutes +N] [--turns +N] [--repo DIR] [--json]

Continues a local run that was interrupted (killed, or waiting): replays its
events.jsonl, re-does only the effects whose results were never recorded, and goes on.
A run whose workflow file changed since it started is refused.

With --budget, --minutes or --turns (or --step), retries a finished step with that
limit raised — by default the step a turn, time or cost limit stopped — starting from
the work it kept, like \`/baton retry <step> --budget +$2\` on GitHub. Raises hold
within the workflow's \`budget.raise-to\`; a raise past it is refused, naming the cap.
  --step ID        the step to retry (default: the one a limit stopped)
  --budget +N      add N US dollars to the run's max-cost-usd (\`+$N\` too, quoted)
  --minutes +N     add N minutes to the step's time limit
  --turns +N       add N turns to the step's agent's max-turns

${common}`;

export const answerHelp = `Usage: baton answer <run> "answer 1" ["answer 2"…] [--repo DIR] [--json]

Answers the open questions of a local run's ask step, in order ("" leaves one open),
and continues the run.

${common}`;

export const approveHelp = `Usage: baton approve <run> [--repo DIR] [--json]

Approves the approve step a local run waits at, and continues the run.

${common}`;

type Kind = 'resume' | 'answer' | 'approve';

async function continueRun(kind: Kind, args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { repo: { type: 'string' }, json: { type: 'boolean' }, step: { type: 'string' }, budget: { type: 'string' }, minutes: { type: 'string' }, turns: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const [runId, ...rest] = positionals;
  if (!runId) throw new UsageError('name the run (see `baton list`)');
  const raised = raiseOf(values);
  if (raised && kind !== 'resume') throw new UsageError(`\`baton ${kind}\` takes no --step, --budget, --minutes or --turns (\`baton resume\` does)`);
  if (kind !== 'answer' && rest.length) throw new UsageError(`unexpected ${rest.join(' ')}`);
  if (kind === 'answer' && rest.length === 0) throw new UsageError('give the answers, in the order of the questions');
  const json = values.json ?? false;
  const flags = { json, interactive: interactiveTerminal(json) };
  const { opts, progress } = runOptions(io, flags);
  try {
    const store = openStore(values.repo ?? io.cwd, runId);
    const holder = store.lock();
    if (holder !== null) {
      io.err(`baton ${kind}: run ${runId} is being driven by process ${holder}; wait for it, or \`baton cancel ${runId}\``);
      return EXIT.failed;
    }
    const run = await LocalRun.resume(store, opts, false);
    let extra: RunEvent | null = null;
    if (kind === 'answer') extra = answerEvent(run.state, run.workflow, rest, localActor());
    if (kind === 'approve') extra = approveEvent(run.state, run.workflow, localActor());
    if (raised) extra = retryEvent(run.state, run.workflow, raised.step, raised.raise, localActor());
    await run.redo();
    if (extra) await run.feed([extra]);
    return await driveToStop(run, io, flags, progress);
  } catch (err) {
    const code = knownError(err, io, kind);
    if (code !== null) return code;
    throw err;
  }
}

/** `--step` and the raise flags of `baton resume`, read with the comment command's grammar; null when none is given. */
function raiseOf(values: Record<string, unknown>): { step: string | undefined; raise: LimitRaise } | null {
  const words: string[] = [];
  for (const flag of ['budget', 'minutes', 'turns']) if (typeof values[flag] === 'string') words.push(`--${flag}`, values[flag] as string);
  const step = typeof values.step === 'string' ? values.step : undefined;
  if (words.length === 0 && step === undefined) return null;
  const raise = parseRaiseFlags(words);
  if ('error' in raise) throw new UsageError(raise.error);
  return { step, raise };
}

export const resumeCommand = (args: string[], io: CliIO): Promise<number> => continueRun('resume', args, io);
export const answerCommand = (args: string[], io: CliIO): Promise<number> => continueRun('answer', args, io);
export const approveCommand = (args: string[], io: CliIO): Promise<number> => continueRun('approve', args, io);
