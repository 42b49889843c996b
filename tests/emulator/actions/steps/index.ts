// Which implementation runs a step: `run:`, the built-in actions, or a node action from
// a local directory. A `uses:` nothing here knows fails the step with a message that
// names it, instead of silently doing nothing.
import { join } from 'node:path';
import { StepFailure, type StepInvocation, type StepOutcome } from '../types.ts';
import { createAppToken } from './app-token.ts';
import { downloadArtifact, uploadArtifact } from './artifacts.ts';
import { checkout } from './checkout.ts';
import { runNodeAction } from './node-action.ts';
import { resolveInWorkspace } from './paths.ts';
import { runScript } from './run.ts';
import { unresolvedRef } from './versions.ts';

/** `owner/repo[/path]@ref` split into its parts. */
export function parseUses(uses: string): { repo: string; path: string; ref: string } | undefined {
  const m = /^([^/@\s]+\/[^/@\s]+)((?:\/[^@\s]+)?)@(\S+)$/.exec(uses);
  if (!m) return undefined;
  return { repo: m[1]!, path: m[2]!.replace(/^\//, ''), ref: m[3]! };
}

type Builtin = (step: StepInvocation) => Promise<StepOutcome | void>;

function builtin(repo: string, serverUrl: string): Builtin | undefined {
  switch (repo.toLowerCase()) {
    case 'actions/checkout':
      return checkout;
    case 'actions/upload-artifact':
      return (s) => uploadArtifact(s, serverUrl);
    case 'actions/download-artifact':
      return downloadArtifact;
    case 'actions/create-github-app-token':
      return createAppToken;
    default:
      return undefined;
  }
}

/** Where a local action's code is: `./dir` in the workspace, or the runner's `actions` map. */
export function actionDirectory(uses: string, workspace: string, actions: Record<string, string>): string | undefined {
  if (uses.startsWith('./')) return resolveInWorkspace(workspace, uses);
  const parsed = parseUses(uses);
  if (!parsed) return undefined;
  const withRef = `${parsed.repo}${parsed.path ? `/${parsed.path}` : ''}@${parsed.ref}`;
  if (actions[withRef]) return actions[withRef];
  const full = parsed.path ? `${parsed.repo}/${parsed.path}` : parsed.repo;
  for (const [key, dir] of Object.entries(actions)) {
    if (key.toLowerCase() === full.toLowerCase()) return dir;
  }
  for (const [key, dir] of Object.entries(actions)) {
    if (key.toLowerCase() === parsed.repo.toLowerCase()) return parsed.path ? join(dir, parsed.path) : dir;
  }
  return undefined;
}

export async function executeStep(step: StepInvocation): Promise<StepOutcome | void> {
  const { def, job } = step;
  if (def.run !== undefined) return runScript(step);
  const uses = def.uses!;
  if (uses.startsWith('docker://')) throw new StepFailure(`step '${step.name}' uses a Docker action (${uses}), which the emulator does not run`);
  const parsed = parseUses(uses);
  const known = parsed && builtin(parsed.repo, job.host.serverUrl);
  if (known) {
    const unresolved = unresolvedRef(parsed.repo, parsed.ref, uses);
    if (unresolved) throw new StepFailure(unresolved);
    return known(step);
  }
  const dir = actionDirectory(uses, job.workspace, job.options.actions ?? {});
  if (!dir) {
    throw new StepFailure(
      `step '${step.name}' uses '${uses}', which the emulator cannot run: only actions/checkout, ` +
        `actions/upload-artifact, actions/download-artifact, actions/create-github-app-token, ./local actions and the runner's \`actions\` map are supported`,
    );
  }
  return runNodeAction(step, dir, uses);
}
