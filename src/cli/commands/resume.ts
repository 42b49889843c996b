// `baton resume|answer|approve <run> …`: continue a local run from its events.
import { parseArgs } from 'node:util';
import { localActor } from '../../hosts/local/actor.ts';
import type { RunEvent } from '../../engine/index.ts';
import { LocalRun } from '../../hosts/local/run.ts';
import { answerEvent, approveEvent, openStore } from '../../hosts/local/session.ts';
import { EXIT, UsageError, type CliIO } from '../io.ts';
import { driveToStop, interactiveTerminal, knownError, runOptions } from './local-run.ts';

const common = `Options:
  --repo DIR   the repository (default: the current directory)
  --json       print the final summary as JSON
  -h, --help

Exit status: 0 done, 1 failed, 2 usage error or changed manifest, 3 waiting for input.`;

export const resumeHelp = `Usage: baton resume <run> [--repo DIR] [--json]

Continues a local run that was interrupted (killed, or waiting): replays its
events.jsonl, re-does only the effects whose results were never recorded, and goes on.
A run whose workflow file changed since it started is refused.

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
  const { values, positionals } = parseArgs({ args, options: { repo: { type: 'string' }, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const [runId, ...rest] = positionals;
  if (!runId) throw new UsageError('name the run (see `baton list`)');
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
    await run.redo();
    if (extra) await run.feed([extra]);
    return await driveToStop(run, io, flags, progress);
  } catch (err) {
    const code = knownError(err, io, kind);
    if (code !== null) return code;
    throw err;
  }
}

export const resumeCommand = (args: string[], io: CliIO): Promise<number> => continueRun('resume', args, io);
export const answerCommand = (args: string[], io: CliIO): Promise<number> => continueRun('answer', args, io);
export const approveCommand = (args: string[], io: CliIO): Promise<number> => continueRun('approve', args, io);
