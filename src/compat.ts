// Which pieces of baton may work on one run: the baton that drives it (the App, or in
// Actions-only mode the Action of baton.yml's `run` job), the worker that runs a step
// attempt, the `apply` job that writes its result (Actions-only), and the workflow files
// `baton init` wrote. Each says its version: the driver in the task it dispatches
// (agents/task.ts), the worker in its result (agents/result.ts), the files in a
// BATON_FILES_VERSION variable (init/workflows.ts). A piece that does not meet the run is
// refused, and the refusal names both versions and `baton update` (docs/operations.md,
// "Versions that work together").
//
// What "meet" means, and why:
// - The driver and the worker or apply job exchange exactly two things, the task and the
//   result. They meet when they speak the same task/result format (WORKER_FORMAT) and are
//   releases of one line: the same major from 1.0.0 on, the same 0.minor below it.
//   Within a line semver promises nothing breaks (CHANGELOG.md), so a worker pinned to 1.3.0
//   under an App of 1.5.2 is fine, and no upgrade of the App forces a commit to every
//   repository; across lines anything may have changed (in 0.y.z even a minor may break:
//   semver §4), so meeting there is refused rather than guessed at. The format is checked
//   too, so that a format change can never slip through as "the same line".
// - Workflow files are refused when they are older than MIN_FILES_VERSION: the oldest
//   release whose generated files this baton can drive. Files that carry no version were
//   written before baton stamped them; they pin a worker that reports no version, so nothing
//   could tell a skewed worker from a good one, and one `baton update` fixes them for good.
//   Raise MIN_FILES_VERSION (never within a major's promise without a CHANGELOG line) when
//   a release needs something new of the generated files.
import { batonVersion, PACKAGE_NAME } from './names.ts';

/** The format of the task (agents/task.ts) and the result (agents/result.ts, its `version`). */
export const WORKER_FORMAT = 1;

/** The oldest release whose generated workflow files this baton drives (see above). */
export const MIN_FILES_VERSION = '0.1.0';

/** The variable of the generated workflow files that says which baton wrote them. */
export const FILES_VERSION_VAR = 'BATON_FILES_VERSION';

/** What one piece says of itself. */
export interface Stamp {
  /** baton's package version, `X.Y.Z[-pre]`. */
  version: string;
  /** Its task/result format (WORKER_FORMAT of that release). */
  format: number;
}

/** A worker's stamp also says which workflow files it ran under (null: files with no version). */
export interface WorkerStamp extends Stamp {
  files: string | null;
}

const SEMVER = /^(\d{1,6})\.(\d{1,6})\.(\d{1,6})(?:-([0-9A-Za-z.-]{1,40}))?$/;

let own: Stamp | undefined;
/** This copy of baton's stamp. */
export function ownStamp(): Stamp {
  own ??= { version: batonVersion(), format: WORKER_FORMAT };
  return own;
}

/** A version as baton writes them, or null: stamps come from files and artifacts anyone may have written, so nothing else is quoted. */
export function versionOf(v: unknown): string | null {
  return typeof v === 'string' && SEMVER.test(v) ? v : null;
}

/** A stamp read from a task or a result: only a well-formed one counts, anything else is "says no version". */
export function stampOf(v: unknown): Stamp | null {
  if (!v || typeof v !== 'object') return null;
  const s = v as Partial<Stamp>;
  const version = versionOf(s.version);
  return version && Number.isInteger(s.format) && s.format! > 0 && s.format! < 1000 ? { version, format: s.format! } : null;
}

export function workerStampOf(v: unknown): WorkerStamp | null {
  const s = stampOf(v);
  return s && { ...s, files: versionOf((v as { files?: unknown }).files) };
}

/** The stamp a worker of this baton writes: its own, and the files version its job's workflow says (env). */
export function workerStamp(env: NodeJS.ProcessEnv): WorkerStamp {
  return { ...ownStamp(), files: versionOf(env[FILES_VERSION_VAR]) };
}

/** The line of a version, as people read it: `1.x` from 1.0.0 on, `0.4.x` below. */
export function lineOf(version: string): string {
  const [, major, minor] = SEMVER.exec(version)!;
  return major === '0' ? `0.${minor}.x` : `${major}.x`;
}

/** a < b, in semver order (a pre-release before its release). */
export function olderThan(a: string, b: string): boolean {
  const pa = SEMVER.exec(a)!;
  const pb = SEMVER.exec(b)!;
  for (const i of [1, 2, 3]) if (Number(pa[i]) !== Number(pb[i])) return Number(pa[i]) < Number(pb[i]);
  if (pa[4] === pb[4]) return false;
  if (pa[4] === undefined) return false;
  if (pb[4] === undefined) return true;
  return pa[4] < pb[4];
}

/** Whether two pieces may work on one run (the rule above). */
export function meets(a: Stamp, b: Stamp): boolean {
  return a.format === b.format && lineOf(a.version) === lineOf(b.version);
}

const said = (s: Stamp | null): string => (s ? `baton ${s.version}` : 'a baton that does not say its version (written before baton stamped its versions)');

/** The command that brings a repository's files to one version. */
export const updateCommand = (version: string): string => `\`npx -y ${PACKAGE_NAME}@${version} update\``;

/**
 * Why `piece` (the worker, the apply job) may not work on a run driven by `run`, or null
 * when they meet. Both versions are named, and what meets; the fix is `baton update` at
 * the run's version (the worker workflow then pins the run's baton), or, when the run says
 * no version, at the piece's (which refreshes the run's files too).
 */
export function skewRefusal(run: Stamp | null, piece: Stamp | null, what: string, step: string): string | null {
  if (run && piece && meets(run, piece)) return null;
  const meet = run ? ` They work together only within baton ${lineOf(run.version)} (task/result format ${run.format}).` : '';
  const to = run?.version ?? piece?.version ?? ownStamp().version;
  return (
    `${what} is ${said(piece)}${piece ? ` (task/result format ${piece.format})` : ''}, but this run is ${said(run)}${run ? ` (format ${run.format})` : ''}: refused.${meet} ` +
    `Bring them to one version: run ${updateCommand(to)} in the repository and commit what it writes${piece ? `, or move what drives the run (the App, or baton.yml's Action) to baton ${lineOf(piece.version)}` : ''}; then \`/baton retry ${step}\`.`
  );
}

/** Why the worker workflow a worker ran under is too old for the run's baton, or null. */
export function filesRefusal(run: Stamp, files: string | null, step: string): string | null {
  if (files && !olderThan(files, MIN_FILES_VERSION)) return null;
  const wrote = files ? `baton ${files}` : 'a baton that did not stamp its files (0.1.0 or earlier)';
  return (
    `The worker workflow (.github/workflows/baton-worker.yml) was written by ${wrote}, and this run is baton ${run.version}, which runs worker workflows written by baton ${MIN_FILES_VERSION} or later: refused. ` +
    `Run ${updateCommand(run.version)} in the repository and commit what it writes; then \`/baton retry ${step}\`.`
  );
}

/**
 * What `baton doctor` says of a worker workflow's text against this baton, or null when this
 * baton runs its workers: the same rule as filesRefusal and the line of skewRefusal, said
 * before any run is refused.
 */
export function filesWarning(path: string, text: string, run: Stamp = ownStamp()): string | null {
  const files = versionOf(new RegExp(`\\b${FILES_VERSION_VAR}:\\s*"?([0-9A-Za-z.-]+)`).exec(text)?.[1]);
  if (!files || olderThan(files, MIN_FILES_VERSION)) {
    return `${path} was written by ${files ? `baton ${files}` : 'a baton that did not stamp its files (0.1.0 or earlier)'}; baton ${run.version} refuses its workers (it runs files written by baton ${MIN_FILES_VERSION} or later): run ${updateCommand(run.version)} and commit`;
  }
  if (lineOf(files) !== lineOf(run.version)) {
    return `${path} was written by baton ${files}, whose workers an App or baton.yml of baton ${run.version} refuses (they work together only within ${lineOf(run.version)}): run ${updateCommand(run.version)} and commit, if that is the baton that drives your runs`;
  }
  return null;
}
