/**
 * The REST operations the emulator serves, as `METHOD /path-template` exactly as they
 * appear in GitHub's OpenAPI description. `scripts/extract-openapi.ts` copies these
 * operations (and only the components they reference) into `subset.json`; the server
 * refuses to register a route that is not listed here, so every route is validated.
 *
 * Adding an endpoint: add it here, run `npx tsx scripts/extract-openapi.ts`, commit both.
 */
export const OPERATIONS: readonly string[] = [
  // GitHub App
  'GET /app',
  'GET /app/installations',
  'GET /app/installations/{installation_id}',
  'POST /app/installations/{installation_id}/access_tokens',
  'GET /repos/{owner}/{repo}/installation',
  'GET /installation/repositories',
  // The App's webhook deliveries and redelivery (routes/app-deliveries.ts)
  'GET /app/hook/deliveries',
  'GET /app/hook/deliveries/{delivery_id}',
  'POST /app/hook/deliveries/{delivery_id}/attempts',
  // The manifest flow's exchange of the temporary code (routes/app-manifests.ts)
  'POST /app-manifests/{code}/conversions',

  // Repositories, collaborators, commits, contents, merges
  'GET /repos/{owner}/{repo}',
  'GET /repos/{owner}/{repo}/collaborators/{username}/permission',
  'GET /repos/{owner}/{repo}/commits/{ref}',
  'GET /repos/{owner}/{repo}/compare/{basehead}',
  'GET /repos/{owner}/{repo}/branches/{branch}',
  'POST /repos/{owner}/{repo}/merges',
  'GET /repos/{owner}/{repo}/contents/{path}',
  'PUT /repos/{owner}/{repo}/contents/{path}',

  // Issues, comments, labels
  'GET /repos/{owner}/{repo}/issues',
  'POST /repos/{owner}/{repo}/issues',
  'GET /repos/{owner}/{repo}/issues/{issue_number}',
  'PATCH /repos/{owner}/{repo}/issues/{issue_number}',
  'GET /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'GET /repos/{owner}/{repo}/issues/comments',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/comments',
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}',
  'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}',
  'DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}',
  'GET /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/labels',
  'DELETE /repos/{owner}/{repo}/issues/{issue_number}/labels/{name}',
  'GET /repos/{owner}/{repo}/labels',
  'POST /repos/{owner}/{repo}/labels',
  'GET /repos/{owner}/{repo}/labels/{name}',

  // Reactions
  'GET /repos/{owner}/{repo}/issues/{issue_number}/reactions',
  'POST /repos/{owner}/{repo}/issues/{issue_number}/reactions',
  'GET /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',
  'POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions',

  // Checks and commit statuses
  'POST /repos/{owner}/{repo}/check-runs',
  'GET /repos/{owner}/{repo}/check-runs/{check_run_id}',
  'PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}',
  'GET /repos/{owner}/{repo}/commits/{ref}/check-runs',
  'GET /repos/{owner}/{repo}/check-suites/{check_suite_id}',
  'POST /repos/{owner}/{repo}/statuses/{sha}',
  'GET /repos/{owner}/{repo}/commits/{ref}/status',
  'GET /repos/{owner}/{repo}/commits/{ref}/statuses',

  // Git data
  'POST /repos/{owner}/{repo}/git/blobs',
  'GET /repos/{owner}/{repo}/git/blobs/{file_sha}',
  'POST /repos/{owner}/{repo}/git/trees',
  'GET /repos/{owner}/{repo}/git/trees/{tree_sha}',
  'POST /repos/{owner}/{repo}/git/commits',
  'GET /repos/{owner}/{repo}/git/commits/{commit_sha}',
  'GET /repos/{owner}/{repo}/git/ref/{ref}',
  'GET /repos/{owner}/{repo}/git/matching-refs/{ref}',
  'POST /repos/{owner}/{repo}/git/refs',
  'PATCH /repos/{owner}/{repo}/git/refs/{ref}',
  'DELETE /repos/{owner}/{repo}/git/refs/{ref}',

  // Pull requests and reviews
  'GET /repos/{owner}/{repo}/pulls',
  'POST /repos/{owner}/{repo}/pulls',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}',
  'PATCH /repos/{owner}/{repo}/pulls/{pull_number}',
  'PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
  'POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/comments',
  'GET /repos/{owner}/{repo}/pulls/{pull_number}/files',

  // Actions (served by tests/emulator/actions/)
  'GET /repos/{owner}/{repo}/actions/workflows',
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}',
  'POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches',
  'GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs',
  'GET /repos/{owner}/{repo}/actions/runs',
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}',
  'DELETE /repos/{owner}/{repo}/actions/runs/{run_id}',
  'POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel',
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs',
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}',
  'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs',
  'GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts',
  'GET /repos/{owner}/{repo}/actions/artifacts',
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}',
  'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
];
