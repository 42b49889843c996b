// The backends by the name a manifest's `uses:` gives them.
import type { Backend } from '../../manifest/types.ts';
import { aider } from './aider.ts';
import { claudeCode } from './claude-code.ts';
import { codex } from './codex.ts';
import { command } from './command.ts';
import { copilot } from './copilot.ts';
import { gemini } from './gemini.ts';
import { opencode } from './opencode.ts';
import type { AgentBackend } from './types.ts';

export const BACKEND_IMPLS: Record<Backend, AgentBackend> = {
  'claude-code': claudeCode,
  codex,
  aider,
  opencode,
  gemini,
  copilot,
  command,
};

export function backendFor(name: Backend): AgentBackend {
  const b = BACKEND_IMPLS[name];
  if (!b) throw new Error(`unknown agent backend ${JSON.stringify(name)}; known: ${Object.keys(BACKEND_IMPLS).join(', ')}`);
  return b;
}

export type { AgentBackend, Invocation, InvocationOptions, Parsed, Usage } from './types.ts';
