// A Dockerfile read as a list of stages, and a stage run without Docker (this machine has no
// engine): each stage's root is a temp folder, WORKDIR a folder under it, COPY copies from the
// build context (minus .dockerignore's entries) or from an earlier stage's root, RUN runs the
// command with `sh -c` there, ENV accumulates. What a container adds — the base image's Node,
// the user — is not reproduced: the tests run on this machine's Node, as root or not.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Instruction {
  op: string;
  args: string;
}

export interface Stage {
  from: string;
  name: string | null;
  instructions: Instruction[];
}

/** The stages of a Dockerfile: line continuations joined, comments and parser directives dropped. */
export function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n\s*/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!op) throw new Error(`Dockerfile: cannot read ${JSON.stringify(line)}`);
    if (op.toUpperCase() === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args!);
      stages.push({ from: m![1]!, name: m![2] ?? null, instructions: [] });
    } else {
      if (!stages.length) throw new Error(`Dockerfile: ${op} before FROM`);
      stages.at(-1)!.instructions.push({ op: op.toUpperCase(), args: args! });
    }
  }
  return stages;
}

/** The exec form (`["node", "x.js"]`) of CMD, HEALTHCHECK's CMD, or RUN. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((a) => typeof a === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

export interface StageRun {
  root: string;
  workdir: string;
  env: Record<string, string>;
}

/** Runs one stage's COPY/WORKDIR/ENV/RUN into `root`; earlier stages' roots by name for `COPY --from`. */
export function runStage(stage: Stage, o: { context: string; root: string; stages: Record<string, string>; env: NodeJS.ProcessEnv }): StageRun {
  const ignored = existsSync(join(o.context, '.dockerignore'))
    ? readFileSync(join(o.context, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    : [];
  let workdir = o.root;
  const env: Record<string, string> = {};
  const inRoot = (p: string) => (p.startsWith('/') ? join(o.root, p) : join(workdir, p));
  for (const { op, args } of stage.instructions) {
    if (op === 'WORKDIR') {
      workdir = inRoot(args);
      mkdirSync(workdir, { recursive: true });
    } else if (op === 'ENV') {
      for (const [, k, v] of args.matchAll(/(\w+)=(\S+)/g)) env[k!] = v!;
    } else if (op === 'COPY') {
      const words = args.split(/\s+/);
      const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
      const paths = words.filter((w) => !w.startsWith('--'));
      const dest = paths.pop()!;
      const base = from ? o.stages[from] : o.context;
      if (!base) throw new Error(`COPY --from=${from}: no such stage`);
      for (const src of paths) {
        const source = from ? join(base, src) : join(base, src);
        const target = dest.endsWith('/') || paths.length > 1 ? join(inRoot(dest), src.split('/').pop()!) : inRoot(dest);
        if (src === '.') {
          cpSync(o.context, inRoot(dest), { recursive: true, filter: (p) => !ignored.some((i) => p === join(o.context, i) || p.startsWith(join(o.context, i) + '/')) });
        } else {
          mkdirSync(join(target, '..'), { recursive: true });
          cpSync(source, target, { recursive: true });
        }
      }
    } else if (op === 'RUN') {
      execFileSync('sh', ['-c', args], { cwd: workdir, env: { ...o.env, ...env }, stdio: 'pipe' });
    }
    // USER, EXPOSE, HEALTHCHECK, CMD: what the container does at run time, checked by the tests.
  }
  return { root: o.root, workdir, env };
}
