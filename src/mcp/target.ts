// Where a tool acts: a local repository (a path), or a GitHub repository with the issue
// or PR a run lives on. Every tool takes the same three fields.
import { z } from 'zod';

export const targetShape = {
  path: z.string().min(1).optional().describe('A local git repository (absolute path, or relative to the server\'s working directory). Give this or `repository`.'),
  repository: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'owner/repo')
    .optional()
    .describe('A GitHub repository `owner/repo` (token from GITHUB_TOKEN; GITHUB_API_URL for Enterprise). Give this or `path`.'),
  number: z.number().int().positive().optional().describe('The issue or pull request number a GitHub run lives on.'),
};

export type TargetArgs = { path?: string | undefined; repository?: string | undefined; number?: number | undefined };

export type Target = { kind: 'local'; path: string } | { kind: 'github'; owner: string; repo: string; number: number | null };

/** A mistake the caller can fix: returned as an isError result that says what to change. */
export class ToolError extends Error {}

export function resolveTarget(args: TargetArgs, cwd: string): Target {
  if (args.path !== undefined && args.repository !== undefined) throw new ToolError('give either `path` (a local repository) or `repository` (owner/repo on GitHub), not both');
  if (args.repository !== undefined) {
    const [owner, repo] = args.repository.split('/') as [string, string];
    return { kind: 'github', owner, repo, number: args.number ?? null };
  }
  return { kind: 'local', path: args.path ?? cwd };
}

export function needNumber(t: Extract<Target, { kind: 'github' }>, what: string): number {
  if (t.number === null) throw new ToolError(`${what} on GitHub needs \`number\`: the issue or pull request the run lives on`);
  return t.number;
}
