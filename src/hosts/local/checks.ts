// A `checks` step in a local run: the commands of `checks.local` stand in for CI. They
// run in a worktree at the run branch head, and each name's exit status becomes its
// conclusion (its output the summary a fix round gets).
import { join } from 'node:path';
import { runProcess } from '../../agents/process.ts';
import { stepState, type CheckResult, type RunEvent, type RunState } from '../../engine/index.ts';
import type { ChecksStep, Workflow } from '../../manifest/types.ts';
import { addWorktree, removeWorktree } from './git.ts';
import { worktreesDir } from './store.ts';

const MAX_SUMMARY = 8_000;

/** Checks steps waiting for results on the current head that nobody has reported yet. */
export function checksToRun(state: RunState, workflow: Workflow): ChecksStep[] {
  if (state.status !== 'running') return [];
  const seen = state.checks[state.head]?.results ?? {};
  return workflow.steps.filter((s): s is ChecksStep => {
    if (s.kind !== 'checks') return false;
    const st = stepState(state, s.id);
    if (st?.status !== 'running' || st.gate?.phase !== 'waiting-checks') return false;
    return namesOf(s).some((n) => seen[n]?.conclusion == null);
  });
}

function namesOf(step: ChecksStep): string[] {
  return step.names.includes('*') ? Object.keys(step.local) : step.names;
}

export async function runChecks(step: ChecksStep, state: RunState, repo: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<RunEvent> {
  const sha = state.head;
  const wt = join(worktreesDir(repo, state.runId), `checks-${step.id}`);
  addWorktree(repo, wt, sha);
  const checks: CheckResult[] = [];
  try {
    for (const name of namesOf(step)) {
      const command = step.local[name];
      if (command === undefined) {
        checks.push({ name, conclusion: 'failure', summary: `no local command for check \`${name}\`: add \`${name}: <command>\` under \`checks.local\` of step \`${step.id}\`` });
        continue;
      }
      const timeoutMs = step.timeoutMinutes === undefined ? null : step.timeoutMinutes * 60_000;
      const r = await runProcess(['bash', '-c', command], { cwd: wt, env: { ...env, ...step.env }, timeoutMs, signal });
      const output = `${r.stdout}${r.stderr}`.trim();
      const tail = output.length > MAX_SUMMARY ? `…${output.slice(-MAX_SUMMARY)}` : output;
      const conclusion = r.timedOut ? 'timed_out' : r.code === 0 ? 'success' : 'failure';
      const end = r.timedOut ? 'timed out' : r.spawnError ? `could not start: ${r.spawnError.message}` : `exit ${r.code ?? r.signal}`;
      checks.push({ name, conclusion, summary: `$ ${command}\n${tail}${tail ? '\n' : ''}(${end})` });
    }
  } finally {
    removeWorktree(repo, wt);
  }
  return { type: 'checks.reported', key: `${state.runId}/checks/${step.id}/${sha}`, at: Date.now(), sha, checks, complete: true };
}
