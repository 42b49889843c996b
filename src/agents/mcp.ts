// An agent's MCP servers as the worker hands them to a backend: `${NAME}` references read
// from the worker's environment (where the job's secrets are), names checked again (the
// task came through a dispatch input), and the values that must never be shown collected
// for the redactor. Each backend writes them in its CLI's own format (backends/*.ts), into
// a private folder outside the checkout, so no configuration (and no secret) can land in
// the changes the worker collects.
import { MCP_REFERENCE, NO_MCP } from '../manifest/mcp-servers.ts';
import type { AgentSpec } from '../manifest/types.ts';
import { WorkerSetupError } from './preflight.ts';
import { secretValues } from './redact.ts';
import type { McpServers } from './backends/mcp-config.ts';

/** The schema's server-name pattern: the name becomes a config key and part of a CLI argument. */
const SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

export interface ResolvedMcp {
  servers: McpServers;
  /** Values to hide in everything the worker hands on: what the references read, headers, secret-named variables. */
  secrets: string[];
}

/** The agent's servers with their references resolved; null when it has none. Throws WorkerSetupError on a bad one. */
export function resolveMcpServers(agent: string, spec: AgentSpec, env: NodeJS.ProcessEnv): ResolvedMcp | null {
  const entries = Object.entries(spec.mcpServers ?? {});
  if (!entries.length) return null;
  const cannot = NO_MCP[spec.uses];
  if (cannot) throw new WorkerSetupError(`agent ${agent} uses ${spec.uses}, which cannot be given MCP servers (${cannot}); remove its \`mcp-servers\``);
  const secrets = new Set<string>();
  const servers: McpServers = {};
  for (const [name, raw] of entries) {
    const where = `MCP server ${JSON.stringify(name)} of agent ${agent}`;
    if (!SERVER_NAME.test(name)) throw new WorkerSetupError(`${where}: the name must be a letter, then letters, digits, '_' and '-'`);
    const s = raw as { command?: unknown; args?: unknown; env?: unknown; url?: unknown; headers?: unknown };
    const resolve = (field: string, value: unknown): string => {
      if (typeof value !== 'string') throw new WorkerSetupError(`${where}: ${field} must be a string`);
      return value.replace(MCP_REFERENCE, (_m, ref: string) => {
        const v = env[ref];
        if (!ENV_NAME.test(ref)) throw new WorkerSetupError(`${where}: ${field} reads \${${ref}}, which is not a variable name`);
        if (v === undefined || v === '') {
          throw new WorkerSetupError(
            `${where}: ${field} reads \${${ref}}, which the worker's environment does not set; pass it to the worker job (in Actions: a repository secret in the \`env:\` of the \`baton agent\` step)`,
          );
        }
        secrets.add(v);
        return v;
      });
    };
    const map = (field: 'env' | 'headers', names: RegExp): Record<string, string> => {
      const out: Record<string, string> = {};
      const given = s[field] ?? {};
      if (typeof given !== 'object' || Array.isArray(given)) throw new WorkerSetupError(`${where}: \`${field}\` must map names to strings`);
      for (const [k, v] of Object.entries(given)) {
        if (!names.test(k)) throw new WorkerSetupError(`${where}: ${JSON.stringify(k)} is not a valid ${field === 'env' ? 'variable' : 'header'} name`);
        out[k] = resolve(`${field}.${k}`, v);
      }
      return out;
    };
    if (typeof s.command === 'string' && s.url === undefined) {
      // Only `env` and `headers` read the environment: arguments are visible to every process.
      const args = Array.isArray(s.args) ? s.args.map(String) : [];
      const serverEnv = map('env', ENV_NAME);
      for (const v of secretValues(serverEnv)) secrets.add(v);
      servers[name] = { type: 'stdio', command: s.command, args, env: serverEnv };
    } else if (typeof s.url === 'string' && s.command === undefined) {
      if (!/^https?:\/\/\S+$/.test(s.url)) throw new WorkerSetupError(`${where}: url must be an http:// or https:// URL`);
      const headers = map('headers', HEADER_NAME);
      // Headers carry credentials (Authorization, API keys): hidden whatever their name.
      for (const v of Object.values(headers)) secrets.add(v);
      servers[name] = { type: 'http', url: s.url, headers };
    } else throw new WorkerSetupError(`${where}: give exactly one of \`command\` and \`url\``);
  }
  return { servers, secrets: [...secrets] };
}

