// JavaScript actions from a directory: `action.yml` is read, `with:` becomes INPUT_*
// (with the action's defaults, which may be expressions such as `${{ github.token }}`),
// and `node <runs.main>` runs as a subprocess with the runner's environment and the
// runtime service's token (runner-env.ts actionRuntimeVariables). `post:`
// is queued for the end of the job, like the runner does.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { parseCommandFile } from '../command-files.ts';
import { templateText } from '../expressions.ts';
import { runProcess } from '../process.ts';
import { StepCancelled, StepFailure, type StepInvocation } from '../types.ts';
import type { Scalar } from '../workflow-file.ts';

const NODE_RUNTIMES = new Set(['node12', 'node16', 'node20', 'node24']);

interface ActionManifest {
  name?: string;
  inputs?: Record<string, { default?: Scalar; required?: boolean } | null>;
  runs?: { using?: string; main?: string; pre?: string; post?: string; 'post-if'?: string };
}

export async function loadActionManifest(dir: string, label: string): Promise<ActionManifest> {
  const file = ['action.yml', 'action.yaml'].map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!file) throw new StepFailure(`Can't find 'action.yml' or 'action.yaml' for action '${label}' in ${dir}`);
  const doc = parse(await readFile(file, 'utf8')) as ActionManifest | null;
  if (!doc || typeof doc !== 'object') throw new StepFailure(`${file} is not a mapping`);
  return doc;
}

/** INPUT_ variable name of an input, as @actions/core looks it up. */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

export async function runNodeAction(step: StepInvocation, dir: string, label: string): Promise<void> {
  const { job } = step;
  const manifest = await loadActionManifest(dir, label);
  const using = manifest.runs?.using;
  if (!using || !NODE_RUNTIMES.has(using)) {
    throw new StepFailure(`action '${label}' uses \`runs.using: ${using ?? '(none)'}\`; the emulator runs only node actions (node20, node24)`);
  }
  if (manifest.runs?.pre) throw new StepFailure(`action '${label}' has a \`pre:\` entry point, which the emulator does not run`);
  const main = manifest.runs?.main;
  if (!main) throw new StepFailure(`action '${label}' has no \`runs.main\``);

  const declared = manifest.inputs ?? {};
  const unexpected = Object.keys(step.with).filter((k) => !(k in declared));
  if (unexpected.length > 0) {
    job.log(`##[warning]Unexpected input(s) '${unexpected.join("', '")}', valid inputs are ['${Object.keys(declared).join("', '")}']`);
  }
  // The runtime service's variables come last: the runner sets them after env (a `run:` step never has them).
  const env: Record<string, string> = { ...step.env, ...job.actionRuntime };
  for (const [name, def] of Object.entries(declared)) {
    if (def?.default !== undefined && def.default !== null) env[inputVariable(name)] = templateText(def.default, step.contexts);
  }
  for (const [name, value] of Object.entries(step.with)) env[inputVariable(name)] = value;

  const node = job.options.nodePath ?? process.execPath;
  const run = async (entry: string, signal: AbortSignal, timeoutMs: number): Promise<void> => {
    const argv = [node, ...(job.options.nodeArgs ?? []), join(dir, entry)];
    const [command, ...args] = job.sandbox ? job.sandbox.wrap(argv, job.workspace) : argv;
    const result = await runProcess(command!, args, { cwd: job.workspace, env, timeoutMs, signal, log: job.log });
    if (result.stopped === 'timeout') throw new StepFailure(`The action '${step.name}' has timed out.`);
    if (result.stopped === 'cancelled') throw new StepCancelled();
    if (result.exitCode !== 0) throw new StepFailure(`Node action '${label}' exited with code ${result.exitCode ?? result.signal}.`);
  };
  const post = manifest.runs?.post;
  if (post) {
    job.post.push({
      name: `Post ${step.name}`,
      run: async (signal, timeoutMs) => {
        // what main saved with GITHUB_STATE comes back as STATE_<name>
        const state = parseCommandFile(await readFile(step.files.state, 'utf8'), 'GITHUB_STATE');
        for (const [k, v] of Object.entries(state)) env[`STATE_${k}`] = v;
        await run(post, signal, timeoutMs);
      },
    });
  }
  await run(main, step.signal, step.timeoutMs);
}
