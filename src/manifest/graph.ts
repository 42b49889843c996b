// The step graph: which steps run before which. Shared by the validator (cycles,
// "does this step run before that one") and by `baton graph`.
import type { Workflow } from './types.ts';

/** A cycle in `needs`, as the list of step ids that form it (first repeated at the end). */
export function findCycle(workflow: Workflow): string[] | undefined {
  const needs = new Map(workflow.steps.map((s) => [s.id, s.needs]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined;
    if (state.get(id) === 'visiting') return [...path.slice(path.indexOf(id)), id];
    state.set(id, 'visiting');
    path.push(id);
    for (const dep of needs.get(id) ?? []) {
      if (!needs.has(dep)) continue;
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const step of workflow.steps) {
    const cycle = visit(step.id);
    if (cycle) return cycle.reverse();
  }
  return undefined;
}

/** Every step that must finish before `id` can start (transitively). Safe on cycles. */
export function ancestors(workflow: Workflow, id: string): Set<string> {
  const needs = new Map(workflow.steps.map((s) => [s.id, s.needs]));
  const out = new Set<string>();
  const stack = [...(needs.get(id) ?? [])];
  while (stack.length) {
    const dep = stack.pop()!;
    if (out.has(dep) || !needs.has(dep)) continue;
    out.add(dep);
    stack.push(...needs.get(dep)!);
  }
  out.delete(id);
  return out;
}

/** The DAG as a mermaid flowchart; `classes` colours steps by state (record and CLI share it). */
export function toMermaid(workflow: Workflow, classes: Record<string, string[]> = {}): string {
  const lines = ['flowchart LR'];
  for (const step of workflow.steps) lines.push(`  ${mermaidId(step.id)}["${step.id}"]`);
  for (const step of workflow.steps) {
    for (const dep of step.needs) lines.push(`  ${mermaidId(dep)} --> ${mermaidId(step.id)}`);
  }
  const palette: Record<string, string> = {
    done: 'fill:#2da44e,color:#fff',
    running: 'fill:#bf8700,color:#fff',
    failed: 'fill:#cf222e,color:#fff',
    waiting: 'fill:#0969da,color:#fff',
    skipped: 'fill:#8c959f,color:#fff',
  };
  for (const [cls, ids] of Object.entries(classes)) {
    if (!ids.length) continue;
    lines.push(`  classDef ${cls} ${palette[cls] ?? 'fill:#eee'}`);
    lines.push(`  class ${ids.map(mermaidId).join(',')} ${cls}`);
  }
  return lines.join('\n');
}

// Mermaid reserves words like `end` and chokes on `-` at odd places: prefix every id.
function mermaidId(id: string): string {
  return 's_' + id.replace(/[^A-Za-z0-9_]/g, '_');
}
