// baton's names, in one place: every generated file, doc snippet and message takes them from
// here. The npm name `baton` belongs to an unrelated package, so the package is scoped.
import { readFileSync } from 'node:fs';

/** The npm package (`npx -y @baton-dev/baton <command>`). */
export const PACKAGE_NAME = '@baton-dev/baton';
/** The command it installs. */
export const BIN_NAME = 'baton';
/** The home repository on GitHub, which is also the Action. */
export const HOME_REPO = 'baton-dev/baton';
/** The major tag the Action is used by, moved on every release of that major. */
export const ACTION_MAJOR = 'v1';
/** `uses:` of the baton Action in the workflows `baton init` writes. */
export const ACTION_REF = `${HOME_REPO}@${ACTION_MAJOR}`;

/**
 * Where the manifest schema of a baton release is published: the file in the home repository
 * at the tag the Action is used by, so an editor checks a workflow against the schema of the
 * baton that runs it. `schema/workflow.schema.json` names this as its `$id` (a test holds it).
 * A fork or a pinned ref (`init --action-ref owner/repo@ref`) gets that ref's schema.
 */
export function schemaUrl(actionRef: string = ACTION_REF): string | null {
  const m = /^([^/@\s]+\/[^/@\s]+)@(\S+)$/.exec(actionRef);
  return m ? `https://raw.githubusercontent.com/${m[1]}/${m[2]}/schema/workflow.schema.json` : null;
}

/**
 * A page of baton's docs, as a link a user can open wherever baton runs (an installed package
 * has no docs/ folder): the file in the home repository at the Action's major tag, whose
 * docs describe the Action that tag points at. `path` is relative to docs/ (`app.md#run-it`).
 */
export function docsUrl(path: string): string {
  return `https://github.com/${HOME_REPO}/blob/${ACTION_MAJOR}/docs/${path}`;
}

/** The version of this copy of baton (its package.json). */
export function batonVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
