// How a CLI command drives a local run: live progress, questions on the terminal when
// there is one, SIGTERM (from `baton cancel`) as a cancel, and the exit code and final
// message for the outcome.
import { createInterface } from 'node:readline/promises';
import { InvalidStateError, ManifestChangedError, UnknownStateVersionError } from '../../engine/index.ts';
import { AgentsNotReadyError } from '../../hosts/local/agents-ready.ts';
import { GitError } from '../../hosts/local/git.ts';
import { PullRequestBranchError } from '../../hosts/local/pull-request.ts';
import { Progress } from '../../hosts/local/progress.ts';
import type { Interaction, LocalRun, Outcome, RunOptions } from '../../hosts/local/run.ts';
import { cancelEvent, summarize } from '../../hosts/local/session.ts';
import { RunNotFoundError } from '../../hosts/local/store.ts';
import { describeWaiting } from '../../hosts/local/waiting.ts';
import { InvalidWorkflowError, WorkflowNotFoundError } from '../../hosts/local/workflows.ts';
import { InputError } from '../../hosts/local/session.ts';
import { EXIT, errorLine, type CliIO } from '../io.ts';

export interface LocalFlags {
  json: boolean;
  /** Terminal questions: only when stdin and stdout are terminals and not --json. */
  interactive: boolean;
}

export function interactiveTerminal(json: boolean): boolean {
  return !json && Boolean(process.stdin.isTTY && process.stdout.isTTY);
}

export function runOptions(io: CliIO, flags: LocalFlags): { opts: RunOptions; progress: Progress } {
  const write = (t: string): void => (flags.json ? io.err : io.out)(t.replace(/\n$/, ''));
  const tty = !flags.json && Boolean(process.stdout.isTTY) && flags.interactive;
  const progress = new Progress({ write: tty ? (t) => process.stdout.write(t) : write, tty });
  const interaction: Interaction = {
    interactive: flags.interactive,
    async ask(question) {
      progress.done();
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return await rl.question(`? ${question}\n> `);
      } finally {
        rl.close();
      }
    },
  };
  return {
    progress,
    opts: { env: process.env, interaction, saved: (s) => progress.update(s), say: (t) => progress.say(t) },
  };
}

/** Runs the loop with SIGTERM/SIGINT handled, then reports. */
export async function driveToStop(run: LocalRun, io: CliIO, flags: LocalFlags, progress: Progress): Promise<number> {
  const onTerm = (): void => run.interrupt(cancelEvent(run.state, 'baton cancel'));
  process.on('SIGTERM', onTerm);
  let outcome: Outcome;
  try {
    outcome = await run.loop();
  } finally {
    process.off('SIGTERM', onTerm);
    progress.done();
  }
  return report(run, outcome, io, flags);
}

export function report(run: LocalRun, outcome: Outcome, io: CliIO, flags: LocalFlags): number {
  const summary = summarize(run.store, run.state, run.workflow);
  const pr = run.host.prCommand ?? summary.prCommand;
  if (flags.json) io.out(JSON.stringify({ outcome, ...summary, prCommand: pr }, null, 2));
  const say = flags.json ? io.err : io.out;
  const id = run.store.runId;
  switch (outcome) {
    case 'succeeded':
      say(`run ${id} succeeded: branch ${summary.branch} at ${summary.head.slice(0, 12)}; record: ${summary.recordFile}`);
      if (pr) say(`Open the pull request with:\n  ${pr}`);
      return EXIT.ok;
    case 'failed':
      say(`run ${id} ${summary.status}${summary.reason ? `: ${summary.reason}` : ''}\nrecord: ${summary.recordFile}`);
      return EXIT.failed;
    case 'waiting':
      say(`run ${id} is waiting for input.\n${describeWaiting(id, summary.waiting)}`);
      return EXIT.waiting;
    case 'stuck':
      say(`run ${id} has nothing left to do but is not finished (${summary.status}); see ${summary.recordFile}`);
      return EXIT.failed;
  }
}

/** Errors a person can fix (a changed manifest, an unreadable state, no such run…): exit 2 with the message; others are bugs and propagate. */
const KNOWN_ERRORS = [AgentsNotReadyError, ManifestChangedError, UnknownStateVersionError, InvalidStateError, WorkflowNotFoundError, InvalidWorkflowError, InputError, RunNotFoundError, GitError, PullRequestBranchError];

export function knownError(err: unknown, io: CliIO, command: string): number | null {
  if (!KNOWN_ERRORS.some((kind) => err instanceof kind)) return null;
  io.err(errorLine(command, (err as Error).message));
  return EXIT.usage;
}
