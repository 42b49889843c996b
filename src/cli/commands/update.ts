// `baton update [--repo DIR] [--action-ref R]`: refreshes what `baton init` wrote (workflow
// files, the worker workflow, pinned Action versions) to what this version writes, keeping
// the user's edits by a three-way merge from what init wrote (init/base.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { InitBaseError, INIT_BASE_FILE, readInitBase, writeInitBase } from '../../init/base.ts';
import { libraryWorkflows } from '../../init/library.ts';
import { mergeThreeWay } from '../../init/merge.ts';
import { planInit } from '../../init/plan.ts';
import { batonVersion } from '../../names.ts';
import { alignPins, pinChanges } from '../../init/pin-refresh.ts';
import { batonAction, type BatonAction } from '../../release-pin.ts';
import { FULL_SHA } from '../../init/action-pins.ts';
import { unloadedWarning, unpinnedActionWarning } from './init.ts';
import { subscriptionsIn } from '../../init/repo-manifests.ts';
import { onBlockOf, subscriptionChanges, withOnBlock } from '../../init/on-block.ts';
import { ACTIONS_ONLY_WORKFLOW, MANIFESTS_DIR } from '../../manifest/warn-token.ts';
import { EXIT, UsageError, errorLine, type CliIO } from '../io.ts';

export const help = `Usage: baton update [--repo DIR] [--action-ref OWNER/REPO@REF]

Refreshes the files \`baton init\` wrote (.agents/workflows/*.yml from baton's library,
.github/workflows/baton-worker.yml, baton.yml in Actions-only mode) to what this version of
baton writes, keeping your edits: each file is merged three ways, from what init wrote
(kept in ${INIT_BASE_FILE}). Where your edits and baton's changes touch the same lines, the
file keeps both between conflict markers and the command names it (exit 1): settle them,
then commit. The Action reference moves to this version's pin (the commit of its release tag)
unless init was given another one; --action-ref sets it.

Pins: every \`uses:\` of GitHub's actions and of baton's Action moves to the commit SHA this
version of baton pins (\`owner/repo@<sha> # vX.Y.Z\`), and the command prints each action's
old → new. A pin you (or Dependabot) moved to a newer release is kept; a branch or a fork you
chose is yours, merged like any other edit.

baton.yml's \`on:\` (Actions-only mode) is baton's: it is written whole from the triggers of every
.agents/workflows/*.yml (pull_request and issues types, workflow_run names, schedule crons), so
run this after adding a trigger. An event there baton never writes (workflow_dispatch…) stays.`;

export function updateCommand(args: string[], io: CliIO): number {
  const { values, positionals } = parseArgs({ args, options: { repo: { type: 'string' }, 'action-ref': { type: 'string' } }, allowPositionals: true, strict: true });
  if (positionals.length) throw new UsageError(`unexpected ${positionals.join(' ')}`);
  const root = resolve(io.cwd, values.repo ?? '.');
  let base;
  try {
    base = readInitBase(root);
  } catch (err) {
    if (!(err instanceof InitBaseError)) throw err;
    io.err(errorLine('update', err.message));
    return EXIT.failed;
  }
  // A reference init chose by default follows baton's; one the user gave stays.
  const given = values['action-ref'] ?? (base.actionRefGiven ? base.actionRef : undefined);
  if (given !== undefined && !/^[^/@\s]+\/[^@\s]+@\S+$/.test(given)) throw new UsageError(`--action-ref must look like owner/repo@ref, not ${JSON.stringify(given)}`);
  const action: BatonAction = given !== undefined ? { ref: given, pinned: FULL_SHA.test(given.replace(/^.*@/, '')) } : batonAction();
  const actionRef = action.ref;
  const library = libraryWorkflows();
  const gone = base.workflows.filter((n) => !library.some((w) => w.name === n));
  const planOptions = { mode: base.mode, workflows: library.filter((w) => base.workflows.includes(w.name)), actionRef, ...(action.version ? { actionVersion: action.version } : {}), appToken: base.appToken };
  const plan = planInit(planOptions);
  let invalid: string[] = [];

  const lines: string[] = [];
  const conflicted: string[] = [];
  const written: { path: string; text: string }[] = [];
  // The base's version is read from a committed file: only a version-like word goes into the markers.
  const was = /^[\w.+-]{1,40}$/.test(base.baton) ? base.baton : 'an earlier version';
  const labels = { yours: 'yours', base: `baton init (${was})`, theirs: `baton ${batonVersion()}` };
  for (let f of plan.files) {
    if (f.path === ACTIONS_ONLY_WORKFLOW) {
      // Its `on:` serves the manifests as this update leaves them: the ones merged above, the rest as they are on disk.
      const r = subscriptionsIn(root, Object.fromEntries(written.filter((w) => w.path.startsWith(`${MANIFESTS_DIR}/`)).map((w) => [w.path, w.text])));
      invalid = r.invalid;
      f = planInit({ ...planOptions, subscriptions: () => r.subscriptions }).files.find((p) => p.path === ACTIONS_ONLY_WORKFLOW)!;
      plan.files[plan.files.findIndex((p) => p.path === ACTIONS_ONLY_WORKFLOW)] = f;
    }
    const target = join(root, f.path);
    let before = base.files[f.path];
    if (!existsSync(target)) {
      if (before !== undefined) {
        lines.push(`  ${f.path}: you deleted it; left out (delete it from ${INIT_BASE_FILE} too, or restore it with baton init --force)`);
        continue;
      }
      written.push(f);
      lines.push(`  ${f.path}: added`);
      continue;
    }
    const original = readFileSync(target, 'utf8');
    let mine = original;
    let subscribed: string[] = [];
    if (f.path === ACTIONS_ONLY_WORKFLOW) {
      // baton.yml's `on:` is baton's (init/on-block.ts): written whole, never merged, so no edit of it can hold a trigger back.
      const block = onBlockOf(f.text);
      const owned = withOnBlock(mine, block);
      if (owned === undefined) lines.push(`  ${f.path}: no top-level \`on:\` found; merged like any other file`);
      else {
        subscribed = subscriptionChanges(mine, owned).map((c) => `      on: ${c}`);
        mine = owned;
        if (before !== undefined) before = withOnBlock(before, block) ?? before;
      }
    }
    // Pins you or Dependabot moved: older ones follow baton's, newer ones stay (init/pin-refresh.ts).
    const { yours, theirs, kept } = alignPins(mine, before, f.text);
    const pins = (text: string) => [...pinChanges(mine, text), ...kept].map((c) => `      ${c}`);
    // Nothing new from baton (whatever you changed stays), or you already have what it writes.
    if (mine === theirs || before === theirs) {
      if (mine !== original) {
        written.push({ path: f.path, text: mine });
        lines.push(`  ${f.path}: \`on:\` rewritten from ${MANIFESTS_DIR}${mine === theirs ? '' : ', your edits elsewhere kept'}`, ...subscribed, ...kept.map((c) => `      ${c}`));
      } else lines.push(`  ${f.path}: up to date${mine === theirs ? '' : ' (your edits kept)'}`, ...kept.map((c) => `      ${c}`));
      continue;
    }
    if (before === undefined) {
      conflicted.push(f.path);
      const merged = mergeThreeWay(yours, '', theirs, labels);
      written.push({ path: f.path, text: merged.text });
      lines.push(`  ${f.path}: not written by baton init, and differs from what baton writes: both kept between conflict markers`);
      continue;
    }
    const merged = mergeThreeWay(yours, before, theirs, labels);
    written.push({ path: f.path, text: merged.text });
    if (merged.conflicts) {
      conflicted.push(f.path);
      lines.push(`  ${f.path}: ${merged.conflicts} conflict${merged.conflicts === 1 ? '' : 's'} (your edits and baton's changes touch the same lines; see the <<<<<<< markers)`);
    } else lines.push(`  ${f.path}: ${mine === before ? 'updated' : 'updated, your edits kept'}`, ...subscribed, ...pins(merged.text));
  }
  for (const w of written) writeFileSync(join(root, w.path), w.text);
  writeInitBase(root, { version: 1, baton: batonVersion(), mode: base.mode, workflows: base.workflows.filter((n) => !gone.includes(n)), actionRef, actionRefGiven: base.actionRefGiven || values['action-ref'] !== undefined, appToken: base.appToken, files: Object.fromEntries(plan.files.map((f) => [f.path, f.text])) });
  io.out([`baton update (${base.mode} mode, ${actionRef}) in ${root}:`, ...lines].join('\n'));
  const unpinned = unpinnedActionWarning(action, given !== undefined);
  if (unpinned) io.err(unpinned);
  if (base.mode === 'actions' && invalid.length) io.err(unloadedWarning('update', invalid));
  if (gone.length) io.err(`baton update: no longer in baton's library, left as they are: ${gone.map((n) => `.agents/workflows/${n}.yml`).join(', ')}`);
  if (conflicted.length) {
    io.err(`baton update: could not merge ${conflicted.join(', ')}: settle the conflict markers, then commit`);
    return EXIT.failed;
  }
  return EXIT.ok;
}
