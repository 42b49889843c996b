// The one table of paths agent CLIs read from a checkout as instructions, settings,
// environment, hooks, agents, skills or MCP configuration. An agent that read an issue may
// have been told to plant any of them for the next agent to obey, so:
//  - a result that changes one is refused unless its step lists it (protected-paths.ts);
//  - before each agent starts, the worker puts every one back as the default branch has it
//    (restore-agent-config.ts): what a maintainer committed stays; what a step, a pull
//    request or a fork wrote goes.
// docs/agents.md shows this table (tests/docs/agent-config-table.test.ts keeps them equal).
import { comparableName } from './git-path.ts';

export type AgentCli = 'aider' | 'claude-code' | 'codex' | 'gemini' | 'opencode' | 'copilot' | 'other';

export interface AgentConfigPath {
  /** As shown in the docs: a folder ends with `/`. */
  path: string;
  /** `root`: only at the repository root; `any`: at any depth (CLIs read nested ones too). */
  where: 'root' | 'any';
  readBy: readonly AgentCli[];
  /** What the CLIs take from it. */
  as: string;
  /** Where each CLI's own documentation says so. */
  source: string;
}

export const AGENT_CONFIG_PATHS: readonly AgentConfigPath[] = [
  { path: '.env', where: 'root', readBy: ['aider', 'gemini'], as: 'environment (`AIDER_*`, `OPENAI_API_BASE`, keys, endpoints)', source: 'aider docs "Config with .env"; Gemini CLI docs "Authentication" (.env files)' },
  { path: '.aider.conf.yml', where: 'any', readBy: ['aider'], as: 'settings (any option: `lint-cmd`, `test-cmd`, `read`, endpoints)', source: 'aider docs "YAML config file"' },
  { path: '.aider.model.settings.yml', where: 'any', readBy: ['aider'], as: 'model settings (extra request parameters, endpoints)', source: 'aider docs "Advanced model settings"' },
  { path: '.aider.model.metadata.json', where: 'any', readBy: ['aider'], as: 'model metadata', source: 'aider docs "Advanced model settings"' },
  { path: '.aiderignore', where: 'any', readBy: ['aider'], as: 'which files aider sees', source: 'aider docs "Options reference" (--aiderignore)' },
  { path: 'CLAUDE.md', where: 'any', readBy: ['claude-code', 'opencode', 'copilot'], as: 'instructions', source: 'Claude Code docs "Manage Claude\'s memory"; opencode docs "Rules"; GitHub Docs "Adding custom instructions for Copilot CLI"' },
  { path: 'CLAUDE.local.md', where: 'any', readBy: ['claude-code'], as: 'instructions', source: 'Claude Code docs "Manage Claude\'s memory"' },
  { path: '.claude/', where: 'any', readBy: ['claude-code', 'opencode', 'copilot'], as: 'settings, hooks, agents, commands, skills', source: 'Claude Code docs "Settings", "Hooks", "Subagents", "Skills"; GitHub Docs "Creating agent skills"' },
  { path: '.mcp.json', where: 'any', readBy: ['claude-code'], as: 'MCP servers', source: 'Claude Code docs "MCP" (project scope)' },
  { path: 'AGENTS.md', where: 'any', readBy: ['codex', 'opencode', 'copilot'], as: 'instructions', source: 'Codex docs "AGENTS.md"; opencode docs "Rules"; GitHub Docs "Adding custom instructions for Copilot CLI"' },
  { path: 'AGENTS.override.md', where: 'any', readBy: ['codex'], as: 'instructions', source: 'Codex docs "AGENTS.md"' },
  { path: '.codex/', where: 'any', readBy: ['codex'], as: 'settings, MCP servers, prompts', source: 'Codex docs "Configuration" (project config.toml)' },
  { path: '.agents/skills/', where: 'root', readBy: ['codex', 'copilot'], as: 'skills', source: 'Codex docs "Agent Skills"; GitHub Docs "Creating agent skills"' },
  { path: 'GEMINI.md', where: 'any', readBy: ['gemini', 'copilot'], as: 'instructions', source: 'Gemini CLI docs "GEMINI.md"; GitHub Docs "Adding custom instructions for Copilot CLI"' },
  { path: '.gemini/', where: 'any', readBy: ['gemini'], as: 'settings, environment (.gemini/.env), commands, extensions, MCP servers', source: 'Gemini CLI docs "Configuration", "Custom commands", "Extensions"' },
  { path: '.geminiignore', where: 'root', readBy: ['gemini'], as: 'which files gemini sees', source: 'Gemini CLI docs "Ignoring files"' },
  { path: 'opencode.json', where: 'any', readBy: ['opencode'], as: 'settings, agents, MCP servers, plugins', source: 'opencode docs "Config"' },
  { path: 'opencode.jsonc', where: 'any', readBy: ['opencode'], as: 'settings, agents, MCP servers, plugins', source: 'opencode docs "Config"' },
  { path: '.opencode/', where: 'any', readBy: ['opencode'], as: 'agents, commands, plugins, tools', source: 'opencode docs "Agents", "Commands", "Plugins"' },
  { path: '.github/copilot-instructions.md', where: 'root', readBy: ['copilot'], as: 'instructions', source: 'GitHub Docs "Adding custom instructions for Copilot CLI"' },
  { path: '.github/instructions/', where: 'root', readBy: ['copilot'], as: 'instructions', source: 'GitHub Docs "Adding custom instructions for Copilot CLI"' },
  { path: '.github/agents/', where: 'root', readBy: ['copilot'], as: 'custom agents (`*.agent.md`)', source: 'GitHub Docs "Creating custom agents for Copilot CLI"' },
  { path: '.github/skills/', where: 'root', readBy: ['copilot'], as: 'skills', source: 'GitHub Docs "Creating agent skills"' },
  { path: '.github/hooks/', where: 'root', readBy: ['copilot'], as: 'hooks (commands run on tool use)', source: 'GitHub Docs "Using hooks with Copilot CLI"' },
  { path: '.github/prompts/', where: 'root', readBy: ['other'], as: 'prompts (VS Code agent mode)', source: 'VS Code docs "Prompt files"' },
  { path: '.github/chatmodes/', where: 'root', readBy: ['other'], as: 'chat modes (VS Code agent mode)', source: 'VS Code docs "Custom chat modes"' },
  { path: '.vscode/mcp.json', where: 'root', readBy: ['other'], as: 'MCP servers (VS Code agent mode)', source: 'VS Code docs "Use MCP servers"' },
  // Read by agents a developer may run on the branch baton opens (not started by baton).
  ...['.cursor/', '.windsurf/', '.clinerules/', '.roo/', '.continue/', '.junie/', '.amazonq/', '.kiro/', '.cursorrules', '.windsurfrules', '.roorules'].map(
    (path): AgentConfigPath => ({ path, where: 'any', readBy: ['other'], as: 'instructions, settings', source: "each tool's documentation" }),
  ),
];

const rows = AGENT_CONFIG_PATHS.map((row) => ({ row, parts: row.path.replace(/\/$/, '').split('/').map(comparableName), dir: row.path.endsWith('/') }));

/** The row of the table a checkout path falls under, or undefined. Matched as case-insensitive file systems compare names. */
export function agentConfigRow(path: string): AgentConfigPath | undefined {
  const parts = path.split('/').map(comparableName);
  for (const { row, parts: want, dir } of rows) {
    if (row.where === 'root') {
      if (want.every((w, i) => parts[i] === w) && (dir ? parts.length >= want.length : parts.length === want.length)) return row;
      continue;
    }
    // At any depth: one component (a file, or a folder anywhere on the path).
    const name = want[0]!;
    if (parts.at(-1) === name) return row;
    if (dir && parts.slice(0, -1).includes(name)) return row;
  }
  return undefined;
}

const CLI_NAMES: Record<AgentCli, string> = { aider: 'aider', 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'opencode', copilot: 'Copilot CLI', other: 'other agents' };

/** The table as docs/agents.md shows it. */
export function renderAgentConfigTable(): string {
  const lines = ['| path | where | read by | as | source |', '| --- | --- | --- | --- | --- |'];
  for (const r of AGENT_CONFIG_PATHS) {
    lines.push(`| \`${r.path}\` | ${r.where === 'root' ? 'repository root' : 'any depth'} | ${r.readBy.map((c) => CLI_NAMES[c]).join(', ')} | ${r.as} | ${r.source} |`);
  }
  return lines.join('\n');
}
