// The actions of GitHub's that the workflows `baton init` writes use, each pinned to the full
// commit SHA its release tag points at. A tag can be moved to other code by whoever can push
// to the action's repository; a full-length SHA cannot ("Pinning an action to a full length
// commit SHA is currently the only way to use an action as an immutable release", GitHub's
// docs.github.com/en/actions/security-guides/security-hardening-for-github-actions#using-third-party-actions).
// The worker and apply jobs hold tokens that write to the repository, so nothing they run may move.
//
// Each entry names its source: the release tag in the action's repository on GitHub, and the
// commit `git rev-parse '<tag>^{commit}'` gives there. `baton update` moves users to this table;
// Dependabot (`github-actions` ecosystem) moves SHA pins with version comments between releases.

export interface ActionPin {
  /** owner/repo */
  repo: string;
  /** The release tag the commit is, written after the SHA as `# vX.Y.Z`. */
  version: string;
  /** The full 40-hex commit SHA the tag points at. */
  commit: string;
}

/** A full-length commit SHA: the only ref GitHub treats as immutable. */
export const FULL_SHA = /^[0-9a-f]{40}$/;

export const GITHUB_ACTION_PINS = {
  // github.com/actions/checkout tag v7.0.1 (node24). v7 refuses fork PR checkouts under
  // pull_request_target and workflow_run; the worker is workflow_dispatch and checks out `base`.
  checkout: { repo: 'actions/checkout', version: 'v7.0.1', commit: '3d3c42e5aac5ba805825da76410c181273ba90b1' },
  // github.com/actions/upload-artifact tag v7.0.0 (node24). v7 adds `archive` (default true:
  // the folder is zipped as before); `include-hidden-files` is unchanged since v4.4.
  uploadArtifact: { repo: 'actions/upload-artifact', version: 'v7.0.0', commit: 'bbbca2ddaa5d8feaa63e36b76fdaad77386f024f' },
  // github.com/actions/download-artifact tag v8.0.1 (node24). A download by `name` still lands
  // in `path` itself (v5 changed only downloads by id); v8 fails on a digest mismatch by default.
  downloadArtifact: { repo: 'actions/download-artifact', version: 'v8.0.1', commit: '3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c' },
  // github.com/actions/create-github-app-token tag v3.1.1 (node24). v3.1 deprecates `app-id`
  // for `client-id` (a warning, still accepted); outputs `token` and `app-slug` are unchanged.
  appToken: { repo: 'actions/create-github-app-token', version: 'v3.1.1', commit: '1b10c78c7865c340bc4f6099eb2f838309f1e8c3' },
} as const satisfies Record<string, ActionPin>;

/** The value of a `uses:` key for a pin: `owner/repo@<sha> # vX.Y.Z` (the comment Dependabot keeps current). */
export function pinnedUses(pin: ActionPin): string {
  return `${pin.repo}@${pin.commit} # ${pin.version}`;
}
