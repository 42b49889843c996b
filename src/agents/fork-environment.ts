// A fork run's attempt (SandboxRequest.fork): the agent works on code a stranger wrote, so of
// the job's environment it keeps no secret but its own backend's credentials. The worker
// workflow `baton init` writes passes only model keys; this holds when someone added more to
// the `baton agent` step (an MCP server's token for another workflow, a cloud key): a variable
// that is another backend's credential or is named like a secret is not handed on. The worker
// starts from what this returns, so MCP servers (`${NAME}`), preflight and the agent's
// processes see the same environment.
import { BACKEND_IMPLS } from './backends/index.ts';
import type { Backend } from '../manifest/types.ts';

const CREDENTIAL_NAMES = new Set(Object.values(BACKEND_IMPLS).flatMap((b) => [...b.credentials, ...(b.alternativeCredentials ?? [])]));
/** Names that say "secret" (redact.ts and mcp-servers.ts read names the same way). */
const SECRET_LOOKING = /(TOKEN|SECRET|PASSWORD|PASSWD|(^|_)KEY|API_?KEY|PRIVATE_KEY|CREDENTIALS?|(^|_)PAT|AUTHORIZATION|COOKIE)$/i;

/** `env` without the secrets a fork's agent must not get; `backend` null: a command step, which gets none. */
export function forkEnvironment(env: NodeJS.ProcessEnv, backend: Backend | null): { env: NodeJS.ProcessEnv; dropped: string[] } {
  const impl = backend ? BACKEND_IMPLS[backend] : undefined;
  const own = new Set([...(impl?.credentials ?? []), ...(impl?.alternativeCredentials ?? []), ...Object.values(impl?.credentialCompanions ?? {}).flat()]);
  const kept: NodeJS.ProcessEnv = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (!own.has(k) && (CREDENTIAL_NAMES.has(k) || SECRET_LOOKING.test(k.replace(/-/g, '_')))) dropped.push(k);
    else kept[k] = v;
  }
  return { env: kept, dropped: dropped.sort() };
}
