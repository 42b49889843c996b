// Every REST route baton calls needs, in the emulator, the permission GitHub documents for
// it ("Permissions required for GitHub Apps", docs.github.com/rest/authentication/
// permissions-required-for-github-apps), and app.yml asks for each of them. A route baton
// starts to call without a row here fails this test: say what GitHub requires for it.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withActions } from './actions/index.ts';
import { startEmulator, type Emulator } from './emulator.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * GitHub's requirement per route. Where GitHub accepts either of two permissions (issue
 * comments, labels and reactions on a pull request take `pull_requests` too), the row holds
 * the one baton's calls rely on.
 */
const GITHUB: Record<string, [scope: string, level: 'read' | 'write'] | 'app-jwt' | 'none'> = {
  'GET /app': 'app-jwt',
  // The sweep: the App's installations (JWT), each installation's repositories (any
  // installation token: the list is what it was granted), and their run branches.
  'GET /app/installations': 'app-jwt',
  'GET /installation/repositories': 'none',
  'GET /repos/{owner}/{repo}/git/matching-refs/{ref}': ['contents', 'read'],
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}': ['actions', 'read'],
  // Which workflow run an Actions check suite is (head branch and repository): a checks gate counts only the run's own.
  'GET /repos/{owner}/{repo}/actions/runs': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs': ['actions', 'read'],
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs': ['actions', 'read'],
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel': ['actions', 'write'],
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches': ['actions', 'write'],
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}': ['checks', 'read'],
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs': ['checks', 'read'],
  'GET /repos/{owner}/{repo}/commits/{ref}/status': ['statuses', 'read'],
  'GET /repos/{owner}/{repo}/commits/{ref}': ['contents', 'read'],
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}': ['checks', 'write'],
  'POST /repos/{owner}/{repo}/check-runs': ['checks', 'write'],
  'GET /repos/{owner}/{repo}': ['metadata', 'read'],
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission': ['metadata', 'read'],
  'GET /repos/{owner}/{repo}/compare/{basehead}': ['contents', 'read'],
  // docs "REST API endpoints for branches": Contents (read); `protected` covers branch protection and rulesets.
  'GET /repos/{owner}/{repo}/branches/{branch}': ['contents', 'read'],
  'GET /repos/{owner}/{repo}/contents/{path}': ['contents', 'read'],
  'GET /repos/{owner}/{repo}/git/commits/{commit_sha}': ['contents', 'read'],
  'GET /repos/{owner}/{repo}/git/ref/{ref}': ['contents', 'read'],
  'PATCH /repos/{owner}/{repo}/git/refs/{ref}': ['contents', 'write'],
  'DELETE /repos/{owner}/{repo}/git/refs/{ref}': ['contents', 'write'],
  'POST /repos/{owner}/{repo}/git/blobs': ['contents', 'write'],
  'POST /repos/{owner}/{repo}/git/commits': ['contents', 'write'],
  'POST /repos/{owner}/{repo}/git/refs': ['contents', 'write'],
  'POST /repos/{owner}/{repo}/git/trees': ['contents', 'write'],
  'POST /repos/{owner}/{repo}/merges': ['contents', 'write'],
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments': ['issues', 'read'],
  // Tracking issues of schedules and the CI doctor: found among the open issues baton's bot opened, opened, their body rewritten.
  'GET /repos/{owner}/{repo}/issues': ['issues', 'read'],
  'POST /repos/{owner}/{repo}/issues': ['issues', 'write'],
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}': ['issues', 'write'],
  // `budget.per-day`: the day's run records across the repository (hosts/github/daily-spend.ts).
  'GET /repos/{owner}/{repo}/issues/comments': ['issues', 'read'],
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}': ['issues', 'read'],
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}': ['issues', 'write'],
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments': ['issues', 'write'],
  // The label step's read-back (src/hosts/github/read-back.ts): the labels on the issue.
  'GET /repos/{owner}/{repo}/issues/{issue_number}/labels': ['issues', 'read'],
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels': ['issues', 'write'],
  'GET /repos/{owner}/{repo}/labels': ['issues', 'read'],
  'GET /repos/{owner}/{repo}/labels/{name}': ['issues', 'read'],
  'POST /repos/{owner}/{repo}/labels': ['issues', 'write'],
  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions': ['issues', 'write'],
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions': ['issues', 'write'],
  'GET /repos/{owner}/{repo}/pulls': ['pull_requests', 'read'],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}': ['pull_requests', 'read'],
  'GET /repos/{owner}/{repo}/issues/{issue_number}': ['issues', 'read'],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments': ['pull_requests', 'read'],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews': ['pull_requests', 'read'],
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files': ['pull_requests', 'read'],
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}': ['pull_requests', 'write'],
  'POST /repos/{owner}/{repo}/pulls': ['pull_requests', 'write'],
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews': ['pull_requests', 'write'],
};

/** Routes named in baton's sources: `request('GET /…')` and `paginate('GET /…')`. */
function routesBatonCalls(): string[] {
  const found = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/(?:request|paginate|paginate\.iterator)\('((?:GET|POST|PATCH|PUT|DELETE) \/[^']*)'/g)) found.add(m[1]!);
      }
    }
  };
  walk(join(ROOT, 'src'));
  return [...found].sort();
}

let emu: Emulator;
beforeAll(async () => {
  emu = await startEmulator({ plugins: [withActions({}).plugin] });
});
afterAll(async () => emu.close());

describe('the permission each route baton calls needs', () => {
  const calls = routesBatonCalls();

  it('is known for every route baton calls', () => {
    expect(calls.length).toBeGreaterThan(20);
    expect(calls.filter((r) => !(r in GITHUB))).toEqual([]);
  });

  it('is the one the emulator enforces', () => {
    const enforced = Object.fromEntries(
      calls.map((key) => {
        const route = emu.router.routes.find((r) => `${r.method} ${r.template}` === key);
        if (route === undefined) return [key, 'not served'];
        return [key, route.options.auth === 'app' ? 'app-jwt' : (route.options.permission ?? 'none')];
      }),
    );
    expect(enforced).toEqual(Object.fromEntries(calls.map((key) => [key, GITHUB[key]])));
  });

  it("is granted by app.yml's default_permissions", () => {
    const granted = (parse(readFileSync(join(ROOT, 'app.yml'), 'utf8')) as { default_permissions: Record<string, string> }).default_permissions;
    const rank = { read: 1, write: 2, admin: 3 } as Record<string, number>;
    const missing = calls.filter((key) => {
      const need = GITHUB[key];
      if (need === undefined || need === 'app-jwt' || need === 'none') return false;
      return (rank[granted[need[0]] ?? ''] ?? 0) < rank[need[1]]!;
    });
    expect(missing).toEqual([]);
  });
});
