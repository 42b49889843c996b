/**
 * The runner probe's schema: every fact runner-probe.sh prints, and whether the comparer judges
 * it. A fact that names this one machine (its kernel, the image's version, a path that holds the
 * repository's name) is shown beside the others, not judged; the rest are what the fence and
 * the worker workflow rely on, and a difference between GitHub's runner and the emulator's is a
 * finding (docs/conformance.md, "The runner probe").
 */
export const PROBE_SCHEMA = 'baton-runner-probe/1';

/** The images the probe runs on: GitHub's hosted Linux runners baton's worker meets. */
export const PROBE_IMAGES = ['ubuntu-24.04', 'ubuntu-22.04', 'ubuntu-24.04-arm'] as const;

/** Shown, not judged: they name the machine rather than say what it allows. */
const SHOWN = ['kernel', 'image', 'os', 'arch', 'runner.arch', 'home', 'runner.temp', 'runner.workspace', 'nft.version', 'userns.max', 'resolv.conf', 'cgroup.self', 'ulimit.processes', 'ulimit.files', 'program.node'];

export const FACTS = [
  'user',
  'uid',
  'os',
  'arch',
  'kernel',
  'image',
  'runner.environment',
  'runner.os',
  'runner.arch',
  'home',
  'home.mode',
  'runner.temp',
  'runner.temp.mode',
  'runner.temp.parent.mode',
  'runner.workspace',
  'home.parent.mode',
  'program.sudo',
  'sudo.passwordless',
  'sudoers.d.mode',
  'sudoers.runner.mode',
  'sudoers.runner.rule',
  'sudoers.includedir',
  'program.nft',
  'program.useradd',
  'program.visudo',
  'program.setpriv',
  'program.prlimit',
  'program.unshare',
  'program.nsenter',
  'program.findmnt',
  'nft.version',
  'nft.json',
  'apparmor.restrict_unprivileged_userns',
  'userns.max',
  'userns.unprivileged',
  'yama.ptrace_scope',
  'proc.mount',
  'proc.net.tcp',
  'proc.net.tcp6',
  'resolv.conf',
  'resolv.conf.link',
  'cgroup.version',
  'cgroup.controllers',
  'cgroup.self',
  'cgroup.pids.max',
  'cgroup.memory.max',
  'ulimit.processes',
  'ulimit.files',
  'ulimit.cpu',
  'docker.sock',
  'etc.baton',
  'program.node',
] as const;

export type Fact = (typeof FACTS)[number];
export type Facts = Record<Fact, string>;

export function judged(fact: Fact): boolean {
  return !SHOWN.includes(fact);
}

/**
 * Reads one probe's output: the schema and every fact, each a string; anything else is refused
 * with what and where (the artifact comes from a runner, so it is checked, not trusted).
 */
export function parseProbe(text: string, where: string): Facts {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: the probe's output is not JSON (${(error as Error).message})`, { cause: error });
  }
  const d = doc as { schema?: unknown; facts?: unknown };
  if (d.schema !== PROBE_SCHEMA) throw new Error(`${where}: schema ${JSON.stringify(d.schema)}, expected ${PROBE_SCHEMA}`);
  if (typeof d.facts !== 'object' || d.facts === null) throw new Error(`${where}: no "facts" object`);
  const given = d.facts as Record<string, unknown>;
  const out = {} as Facts;
  for (const fact of FACTS) {
    const value = given[fact];
    if (typeof value !== 'string') throw new Error(`${where}: fact ${fact} is ${value === undefined ? 'missing' : `not a string (${typeof value})`}`);
    out[fact] = value;
  }
  const unknown = Object.keys(given).filter((k) => !(FACTS as readonly string[]).includes(k));
  if (unknown.length > 0) throw new Error(`${where}: facts the comparer does not know: ${unknown.join(', ')} (add them to scripts/conformance/probe/facts.ts)`);
  return out;
}
