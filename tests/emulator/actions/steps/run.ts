// `run:` steps: the script goes to a file and the shell runs it, with the shell templates
// of the Actions runner on Linux (`bash -e {0}` when no shell is given).
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runProcess } from '../process.ts';
import { StepCancelled, StepFailure, type StepInvocation } from '../types.ts';
import { resolveInWorkspace } from './paths.ts';

const SHELLS: Record<string, { args: string[]; ext: string }> = {
  default: { args: ['bash', '-e', '{0}'], ext: '.sh' },
  bash: { args: ['bash', '--noprofile', '--norc', '-eo', 'pipefail', '{0}'], ext: '.sh' },
  sh: { args: ['sh', '-e', '{0}'], ext: '.sh' },
  python: { args: ['python3', '{0}'], ext: '.py' },
};

function shellCommand(shell: string | undefined): { args: string[]; ext: string } {
  if (shell === undefined) return SHELLS.default!;
  const known = SHELLS[shell];
  if (known) return known;
  // A custom shell: `perl {0}`, `node {0}`…
  if (!shell.includes('{0}')) throw new StepFailure(`the shell '${shell}' is not supported; a custom shell must contain {0}`);
  return { args: shell.split(/\s+/), ext: '' };
}

export async function runScript(step: StepInvocation): Promise<void> {
  const { job, def } = step;
  const shell = def.shell ?? job.def.defaults.shell ?? job.workflow.defaults.shell;
  const cmd = shellCommand(shell);
  const script = step.script ?? '';
  const file = join(job.temp, `${randomUUID()}${cmd.ext}`);
  await writeFile(file, script);
  const wd = def.workingDirectory ?? job.def.defaults.workingDirectory ?? job.workflow.defaults.workingDirectory;
  const cwd = wd === undefined ? job.workspace : resolveInWorkspace(job.workspace, wd);
  const argv = cmd.args.map((a) => a.replace('{0}', file));
  const [command, ...args] = job.sandbox ? job.sandbox.wrap(argv, cwd) : argv;
  job.log(`shell: ${cmd.args.join(' ')}`);
  const result = await runProcess(command!, args, { cwd, env: step.env, timeoutMs: step.timeoutMs, signal: step.signal, log: job.log });
  if (result.stopped === 'timeout') throw new StepFailure(`The action '${step.name}' has timed out.`);
  if (result.stopped === 'cancelled') throw new StepCancelled();
  if (result.exitCode !== 0) throw new StepFailure(`Process completed with exit code ${result.exitCode ?? result.signal}.`);
}
