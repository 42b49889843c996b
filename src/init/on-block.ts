// baton.yml's `on:` block is baton's (derived from the manifests, event-subscriptions.ts):
// `baton update` writes it whole instead of merging it, so that a trigger added to a manifest
// reaches baton.yml even where the user touched the block. Events baton does not derive
// (a `workflow_dispatch:` the user added…) are the user's and stay, after baton's.
import { subscribedIn } from '../manifest/warn-subscriptions.ts';
import { OWNED_EVENTS } from './event-subscriptions.ts';

/** The lines [start, end) of the top-level `on:` key and what is indented under it. */
export function onBlockRange(lines: readonly string[]): { start: number; end: number } | undefined {
  const start = lines.findIndex((l) => /^(on|"on"|'on')\s*:\s*(#.*)?$/.test(l));
  if (start < 0) return undefined;
  let end = start + 1;
  // Up to the next line that starts at column 0 (the next key, or a comment of the file's).
  while (end < lines.length && (lines[end] === '' || /^\s/.test(lines[end]!))) end++;
  // Blank lines at the end of the block belong to what follows.
  while (end > start + 1 && lines[end - 1]!.trim() === '') end--;
  return { start, end };
}

/** The user's entries of an `on:` block for events baton does not own, each with the comment lines above it. */
function foreignEntries(block: readonly string[]): string[] {
  const out: string[] = [];
  let comments: string[] = [];
  let keep = false;
  for (const line of block.slice(1)) {
    const key = /^ {2}([A-Za-z_][\w-]*)\s*:/.exec(line)?.[1];
    if (key !== undefined) {
      keep = !(OWNED_EVENTS as readonly string[]).includes(key);
      if (keep) out.push(...comments, line);
      comments = [];
    } else if (/^\s*#/.test(line) && /^ {2}#/.test(line)) comments.push(line);
    else if (keep) out.push(line);
  }
  return out;
}

/**
 * `text` with its `on:` block replaced by `block` (plus the user's entries for events baton
 * does not own); undefined when `text` has no top-level `on:` key baton can find.
 */
export function withOnBlock(text: string, block: readonly string[]): string | undefined {
  const lines = text.split('\n');
  const range = onBlockRange(lines);
  if (!range) return undefined;
  const mine = lines.slice(range.start, range.end);
  return [...lines.slice(0, range.start), ...block, ...foreignEntries(mine), ...lines.slice(range.end)].join('\n');
}

/** The `on:` block of a text baton generated. */
export function onBlockOf(text: string): string[] {
  const lines = text.split('\n');
  const range = onBlockRange(lines);
  if (!range) throw new Error('baton.yml as baton writes it has no `on:` block');
  return lines.slice(range.start, range.end);
}

/** What a workflow's `on:` starts it for, one phrase each (`pull_request opened`, `schedule '0 6 * * 1'`). */
function phrases(text: string): Set<string> {
  const s = subscribedIn(text);
  const out = new Set<string>();
  if (!s) return out;
  for (const [event, sub] of [['pull_request', s.pullRequest], ['pull_request_target', s.pullRequestTarget], ['issues', s.issues]] as const) {
    if (sub) for (const t of sub.types ?? ['(every type)']) out.add(`${event} ${t}`);
  }
  for (const name of s.workflowRun?.workflows ?? []) out.add(`workflow_run ${JSON.stringify(name)}`);
  for (const c of s.schedule) out.add(`schedule '${c.cron}'`);
  return out;
}

/** What changed between two texts' subscriptions: `+ pull_request opened`, `- schedule '…'`. */
export function subscriptionChanges(before: string, after: string): string[] {
  const was = phrases(before);
  const now = phrases(after);
  return [...[...now].filter((p) => !was.has(p)).map((p) => `+ ${p}`), ...[...was].filter((p) => !now.has(p)).map((p) => `- ${p}`)];
}
