// Which refs of GitHub's own actions the emulator runs. GitHub resolves `uses: owner/repo@ref`
// against the action's repository before the job starts, and a ref that is not there fails
// it: "Unable to resolve action `owner/repo@ref`, unable to find version `ref`" (the runner's
// message; a made-up or shortened SHA gets it too). The emulator cannot look refs up, so it
// knows the major tags whose behaviour it models and the commits baton pins
// (src/init/action-pins.ts) with their release tags; every other ref is refused with GitHub's
// message, so a mistyped pin, or a SHA of some other action, fails here as it would there.
import { GITHUB_ACTION_PINS } from '../../../../src/init/action-pins.ts';

const MAJORS: Record<string, string[]> = {
  'actions/checkout': ['v4', 'v5', 'v6', 'v7'],
  'actions/upload-artifact': ['v4', 'v5', 'v6', 'v7'],
  'actions/download-artifact': ['v4', 'v5', 'v6', 'v7', 'v8'],
  'actions/create-github-app-token': ['v1', 'v2', 'v3'],
};

/** The refs of `repo` the emulator resolves. */
export function knownRefs(repo: string): string[] {
  const key = repo.toLowerCase();
  const pins = Object.values(GITHUB_ACTION_PINS).filter((p) => p.repo === key);
  return [...(MAJORS[key] ?? []), ...pins.flatMap((p) => [p.version, p.commit])];
}

/** GitHub's refusal of a ref it cannot find, or undefined when the emulator resolves it. */
export function unresolvedRef(repo: string, ref: string, uses: string): string | undefined {
  if (knownRefs(repo).includes(ref)) return undefined;
  return `Unable to resolve action \`${uses}\`, unable to find version \`${ref}\` (the emulator resolves ${repo} at ${knownRefs(repo).join(', ')})`;
}
