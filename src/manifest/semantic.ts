// Checks that need the whole workflow, after the schema said every key is well formed:
// the step graph, references between steps and agents, expressions, outputs schemas.
import { protectedPathKind } from '../agents/protected-paths.ts';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { didYouMean, listOf, q } from './diagnostics.ts';
import {
  CONTEXTS,
  describeExpressionError,
  findSegments,
  functionsCalled,
  isWholeExpression,
  parseExpression,
  references,
} from './expressions.ts';
import { checkFallbacks } from './fallbacks.ts';
import { filterPatternErrors } from './filter-patterns.ts';
import { forkReviewRefusals } from './fork-review.ts';
import { ancestors, findCycle } from './graph.ts';
import { checkMcpServers } from './mcp-servers.ts';
import { checkNetwork } from './network.ts';
import { checkSchedules } from './schedules.ts';
import { taintOf, type Tainted } from './taint.ts';
import { stepById, type JsonSchema, type Step, type Workflow } from './types.ts';

export interface Report {
  (pointer: string, message: string, opts?: { key?: boolean; warning?: boolean; expression?: number }): void;
}

/** Words after `/baton` that mean something of their own. */
export const BUILTIN_COMMANDS = ['status', 'retry', 'cancel', 'approve', 'answer', 'help', 'plan'];

/**
 * What each step kind exposes as `steps.<id>.outputs`, beyond a declared `outputs` schema.
 * The engine produces exactly these (a test holds the two together).
 */
export const KIND_OUTPUTS: Partial<Record<Step['kind'], string[]>> = {
  ask: ['answers', 'answeredBy'],
  review: ['approved', 'summary', 'comments', 'rounds', 'by'],
  checks: ['sha', 'checks', 'rounds'],
  approve: ['approvedBy'],
  'pull-request': ['number', 'url'],
  label: ['applied', 'unknown', 'dropped'],
};

/** GitHub's longest label name (the create-label endpoint refuses longer ones). */
export const MAX_LABEL_NAME = 50;

export function checkSemantics(wf: Workflow, report: Report): void {
  const ids = checkStepIds(wf, report);
  checkNeeds(wf, ids, report);
  checkAgents(wf, report);
  checkFixTargets(wf, ids, report);
  checkOutputsSchemas(wf, report);
  checkExpressions(wf, ids, report);
  checkForEach(wf, report);
  checkInputs(wf, report);
  checkTriggers(wf, report);
  checkSchedules(wf, report);
  checkCiApproval(wf, report);
  checkMcpServers(wf, report);
  checkFallbacks(wf, report);
  checkProtectedPathLists(wf, report);
  checkNetwork(wf, report);
  checkLabelNames(wf, report);
  for (const r of forkReviewRefusals(wf)) report(r.pointer, r.message, { key: r.key ?? false });
}

/**
 * A label step's names: its `labels` list is written out (an expression there would let what
 * the run read choose what the step may add) and holds no label that starts this workflow (the
 * set's check, validate.ts, adds every other workflow's); a name written out in `add` is one
 * the list holds, or it could never be added. A name GitHub could never have is a typo to say
 * now, not at run time.
 */
function checkLabelNames(wf: Workflow, report: Report): void {
  const triggers = new Map(wf.on.labels.map((l) => [l.toLowerCase(), l]));
  wf.steps.forEach((s, i) => {
    if (s.kind !== 'label') return;
    const listed = new Set(s.labels.map((l) => l.trim().toLowerCase()));
    s.labels.forEach((name, j) => {
      const pointer = `/steps/${i}/label/labels/${j}`;
      const what = `\`labels\` item ${j + 1} of step ${q(s.id)}`;
      if (name.includes('${{')) report(pointer, `${what} is an expression; the labels a step may add are written out, so that nothing the run reads can widen them`);
      else if (!badName(name, what, pointer, report) && triggers.has(name.trim().toLowerCase())) {
        report(pointer, `${what} is ${q(triggers.get(name.trim().toLowerCase())!)}, the label that starts this workflow: a step must not add a label that starts a workflow (an agent could start runs at will)`);
      }
    });
    if (!Array.isArray(s.add)) return;
    s.add.forEach((name, j) => {
      if (name.includes('${{')) return;
      const pointer = `/steps/${i}/label/add/${j}`;
      const what = `\`add\` item ${j + 1} of step ${q(s.id)}`;
      if (!badName(name, what, pointer, report) && s.labels.length && !listed.has(name.trim().toLowerCase())) {
        report(pointer, `${what} is ${q(name.trim())}, which the step's \`labels\` does not list, so it would never be added; add it to \`labels\``);
      }
    });
  });
}

/** Reports a name no GitHub label can have (blank, too long); true when it did. */
function badName(name: string, what: string, pointer: string, report: Report): boolean {
  if (name.trim() === '') {
    report(pointer, `${what} is blank; a label name has at least one character that is not a space`);
    return true;
  }
  const length = [...name.trim()].length;
  if (length > MAX_LABEL_NAME) {
    report(pointer, `${what} has ${length} characters; GitHub's label names have at most ${MAX_LABEL_NAME}, so the repository cannot have this label`);
    return true;
  }
  return false;
}

/**
 * CI on a run branch runs the code agents wrote, with the repository's secrets and token (a
 * test an agent wrote can read them). GitHub's own coding agent holds workflow runs on its
 * pushes until a person approves: warn when no `approve` step stands between a writing agent
 * step and a `checks` step, unless the checks step says `without-approval: true`.
 */
function checkCiApproval(wf: Workflow, report: Report): void {
  wf.steps.forEach((s, i) => {
    if (s.kind !== 'checks' || s.withoutApproval) return;
    const before = ancestors(wf, s.id);
    const approvals = wf.steps.filter((a) => a.kind === 'approve' && before.has(a.id));
    const unapproved = wf.steps.filter(
      (w) => w.kind === 'agent' && w.writes && before.has(w.id) && !approvals.some((a) => ancestors(wf, a.id).has(w.id)),
    );
    if (!unapproved.length) return;
    report(
      `/steps/${i}/checks`,
      `step ${q(s.id)} runs CI on commits agents wrote (${listOf(unapproved.map((w) => w.id))}) with no \`approve\` step before it: CI runs that code with the repository's secrets and token. ` +
        `Add an \`approve\` step between them (as workflows-library/fix-issue-gated.yml does), or set \`without-approval: true\` on the checks step to accept the risk`,
      { key: true, warning: true },
    );
  });
}

function checkStepIds(wf: Workflow, report: Report): Set<string> {
  const first = new Map<string, number>();
  wf.steps.forEach((s, i) => {
    const at = first.get(s.id);
    if (at !== undefined) report(`/steps/${i}/id`, `step id ${q(s.id)} is used twice (steps ${at + 1} and ${i + 1}); step ids must be unique`);
    else first.set(s.id, i);
  });
  return new Set(first.keys());
}

function checkNeeds(wf: Workflow, ids: Set<string>, report: Report): void {
  const all = [...ids];
  wf.steps.forEach((s, i) => {
    s.needs.forEach((dep, j) => {
      if (dep === s.id) report(`/steps/${i}/needs/${j}`, `step ${q(s.id)} needs itself`);
      else if (!ids.has(dep))
        report(`/steps/${i}/needs/${j}`, `step ${q(s.id)} needs ${q(dep)}, which is not a step of this workflow; steps are: ${listOf(all)}${didYouMean(dep, all)}`);
    });
  });
  const cycle = findCycle(wf);
  if (cycle) {
    const at = wf.steps.findIndex((s) => s.id === cycle[0]);
    const j = wf.steps[at]!.needs.indexOf(cycle[1]!);
    report(`/steps/${at}/needs/${Math.max(j, 0)}`, `steps ${cycle.map(q).join(' → ')} need each other in a cycle, so none of them can start`);
  }
}

function checkAgents(wf: Workflow, report: Report): void {
  const names = Object.keys(wf.agents);
  const check = (pointer: string, stepId: string, agent: string): void => {
    if (wf.agents[agent]) return;
    const defined = names.length ? `agents are: ${listOf(names)}${didYouMean(agent, names)}` : 'this workflow defines no `agents`';
    report(pointer, `step ${q(stepId)} uses agent ${q(agent)}, which is not defined under \`agents\`; ${defined}`);
  };
  wf.steps.forEach((s, i) => {
    if (s.kind === 'agent') check(`/steps/${i}/agent`, s.id, s.agent);
    if (s.kind === 'review') check(`/steps/${i}/review/agent`, s.id, s.agent);
  });
}

function checkFixTargets(wf: Workflow, ids: Set<string>, report: Report): void {
  wf.steps.forEach((s, i) => {
    if ((s.kind !== 'review' && s.kind !== 'checks') || s.fix === undefined) return;
    const pointer = `/steps/${i}/${s.kind}/fix`;
    const target = stepById(wf, s.fix);
    if (!target || !ids.has(s.fix)) {
      report(pointer, `step ${q(s.id)} sends fixes to ${q(s.fix)}, which is not a step of this workflow; steps are: ${listOf([...ids])}${didYouMean(s.fix, [...ids])}`);
    } else if ((target.kind !== 'agent' && target.kind !== 'run') || !target.writes) {
      report(pointer, `step ${q(s.id)} sends fixes to ${q(s.fix)}, which does not change files (${target.kind === 'agent' || target.kind === 'run' ? '`writes: false`' : `a ${q(target.kind)} step`}); \`fix\` must name an agent or run step that writes`);
    } else if (!ancestors(wf, s.id).has(s.fix)) {
      report(pointer, `step ${q(s.id)} sends fixes to ${q(s.fix)}, which does not run before it; add ${q(s.fix)} to its \`needs\` (directly or through another step)`);
    }
  });
}

let schemaCompiler: Ajv2020 | undefined;
// The same outputs schema recurs across runs of the validator (and library copies): compile it once.
const compiledOutputs = new Map<string, string | null>();

function checkOutputsSchemas(wf: Workflow, report: Report): void {
  schemaCompiler ??= (() => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    return ajv;
  })();
  wf.steps.forEach((s, i) => {
    if ((s.kind !== 'agent' && s.kind !== 'run') || s.outputs === undefined) return;
    const key = JSON.stringify(s.outputs);
    let problem = compiledOutputs.get(key);
    if (problem === undefined) {
      try {
        schemaCompiler!.compile(s.outputs as object);
        problem = null;
      } catch (err) {
        problem = (err as Error).message;
      }
      compiledOutputs.set(key, problem);
    }
    if (problem !== null) report(`/steps/${i}/outputs`, `the \`outputs\` of step ${q(s.id)} is not a valid JSON Schema: ${problem}`);
  });
}

/**
 * A field that holds expressions, with its JSON pointer. `whole`: a field written either as a
 * list or as one expression that yields the list, named by what the list holds.
 */
interface ExpressionField {
  pointer: string;
  text: string;
  whole?: string;
}

/** Every field of a step that may hold expressions, with the JSON pointer of each. */
function expressionFields(s: Step, i: number): ExpressionField[] {
  const at = (rest: string): string => `/steps/${i}${rest}`;
  const out: ExpressionField[] = [];
  if (s.if !== undefined) out.push({ pointer: at('/if'), text: s.if.includes('${{') ? s.if : '${{ ' + s.if + ' }}' });
  if (s.forEach !== undefined) out.push({ pointer: at('/for-each'), text: s.forEach });
  for (const [k, v] of Object.entries(s.env)) out.push({ pointer: at(`/env/${k}`), text: v });
  switch (s.kind) {
    case 'agent':
      out.push({ pointer: at('/prompt'), text: s.prompt });
      break;
    case 'run':
      out.push({ pointer: at('/run'), text: s.run });
      break;
    case 'ask':
      if (typeof s.questions === 'string') out.push({ pointer: at('/ask/questions'), text: s.questions, whole: 'questions' });
      else s.questions.forEach((qn, j) => out.push({ pointer: at(`/ask/questions/${j}`), text: qn }));
      break;
    case 'review':
      if (s.prompt !== undefined) out.push({ pointer: at('/review/prompt'), text: s.prompt });
      break;
    case 'approve':
      if (s.message !== undefined) out.push({ pointer: at('/approve/message'), text: s.message });
      break;
    case 'pull-request':
      out.push({ pointer: at('/pull-request/title'), text: s.title });
      if (s.body !== undefined) out.push({ pointer: at('/pull-request/body'), text: s.body });
      break;
    case 'label':
      if (typeof s.add === 'string') out.push({ pointer: at('/label/add'), text: s.add, whole: 'label names' });
      else s.add.forEach((name, j) => out.push({ pointer: at(`/label/add/${j}`), text: name }));
      break;
  }
  return out;
}

function checkExpressions(wf: Workflow, ids: Set<string>, report: Report): void {
  const inputNames = Object.keys(wf.inputs);
  wf.steps.forEach((s, i) => {
    const before = ancestors(wf, s.id);
    // `item` and `index` exist only inside a fan-out, and not while deciding whether or over what to fan out.
    const perItem = (pointer: string): boolean => s.forEach !== undefined && !pointer.endsWith('/for-each') && !pointer.endsWith('/if');
    for (const field of expressionFields(s, i)) {
      if (field.whole && !isWholeExpression(field.text)) {
        report(field.pointer, `${fieldName(field.pointer)} of step ${q(s.id)} must be a list of ${field.whole} or one \`\${{ }}\` expression that yields one`);
        continue;
      }
      let segments;
      try {
        segments = findSegments(field.text);
      } catch (err) {
        report(field.pointer, `${fieldName(field.pointer)} of step ${q(s.id)}: ${describeExpressionError(err)}`);
        continue;
      }
      const contexts = CONTEXTS.filter((c) => (c !== 'item' && c !== 'index') || perItem(field.pointer));
      segments.forEach((seg, n) => {
        const where = (msg: string): void => report(field.pointer, msg, { expression: n });
        let expr;
        try {
          expr = parseExpression(seg.source, contexts);
        } catch (err) {
          where(`${fieldName(field.pointer)} of step ${q(s.id)}: ${explainParseError(describeExpressionError(err), seg.source, contexts, s.forEach !== undefined)}`);
          return;
        }
        if (field.pointer.endsWith('/run')) {
          const tainted = taintOf(wf.steps, expr);
          if (tainted.taint !== 'trusted') where(shellInjection(s.id, seg.source, tainted));
        }
        for (const ref of references(expr)) {
          const [ctx, name, part, ...rest] = ref.path;
          if (ctx === 'inputs' && name !== undefined && !wf.inputs[name]) {
            where(`step ${q(s.id)} reads ${q('inputs.' + name)}, which is not declared under \`inputs\`; inputs are: ${listOf(inputNames)}${didYouMean(name, inputNames)}`);
          }
          if (ctx !== 'steps' || name === undefined) continue;
          if (!ids.has(name)) {
            where(`step ${q(s.id)} reads ${q('steps.' + name)}, which is not a step of this workflow; steps are: ${listOf([...ids])}${didYouMean(name, [...ids])}`);
          } else if (name === s.id || !before.has(name)) {
            where(`step ${q(s.id)} reads ${q('steps.' + name)}, which does not run before it; add ${q(name)} to its \`needs\` (directly or through another step)`);
          } else if (part !== undefined && part !== 'outputs' && part !== 'status') {
            where(`step ${q(s.id)} reads ${q(`steps.${name}.${part}`)}; a step offers only \`outputs\` and \`status\`${didYouMean(part, ['outputs', 'status'])}`);
          } else if (part === 'outputs' && rest[0] !== undefined) {
            checkOutputName(wf, name, rest[0], s.id, where);
          }
        }
      });
    }
  });
}

/**
 * Text an issue, an answer or an agent wrote, interpolated into a shell command, runs as code
 * (`$(curl …)` in a title, in an answer, in an agent's output, in a fan-out item): it may reach a
 * command only as an environment variable, which the shell expands without running it.
 */
function shellInjection(stepId: string, source: string, tainted: Tainted): string {
  const last = tainted.ref.split('.').filter(Boolean).pop() ?? 'value';
  const name = last.toUpperCase().replace(/[^A-Z0-9_]/g, '_').replace(/^(?=\d)/, '_') || 'VALUE';
  return (
    `step ${q(stepId)} puts ${q(source)} into a shell command; ${tainted.writer}, and text like \`$(curl …)\` in it would run. ` +
    `Pass it through \`env:\` instead (\`env: { ${name}: \${{ ${source} }} }\`) and use "$${name}" in the command`
  );
}

function checkOutputName(wf: Workflow, stepId: string, key: string, readerId: string, where: (m: string) => void): void {
  const step = stepById(wf, stepId)!;
  let known: string[] | undefined = KIND_OUTPUTS[step.kind];
  if ((step.kind === 'agent' || step.kind === 'run') && step.outputs !== undefined) known = declaredProperties(step.outputs);
  if (!known || known.includes(key)) return;
  where(`step ${q(readerId)} reads output ${q(key)} of step ${q(stepId)}, which has no such output; its outputs are: ${listOf(known)}${didYouMean(key, known)}`);
}

function declaredProperties(schema: JsonSchema): string[] | undefined {
  if (typeof schema !== 'object' || !schema.properties || typeof schema.properties !== 'object') return undefined;
  // A schema that allows other keys cannot rule a name out.
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
  return Object.keys(schema.properties);
}

function explainParseError(message: string, source: string, contexts: readonly string[], inForEach: boolean): string {
  const ctx = /Unrecognized named-value: '([^']+)'/.exec(message);
  if (ctx) {
    const name = ctx[1]!;
    if ((name === 'item' || name === 'index') && inForEach) {
      return `${q(name)} is only available in the fields of a \`for-each\` step other than \`if\` and \`for-each\` (in ${q(source)})`;
    }
    if (name === 'item' || name === 'index') return `${q(name)} is only available in steps with \`for-each\` (in ${q(source)})`;
    return `unknown context ${q(name)} in ${q(source)}; contexts are: ${contexts.join(', ')}${didYouMean(name, contexts)}`;
  }
  const fn = /Unrecognized function: '([^']+)'/.exec(message);
  if (fn) {
    const known = ['contains', 'startsWith', 'endsWith', 'format', 'join', 'toJSON', 'fromJSON'];
    return `unknown function ${q(fn[1])} in ${q(source)}; functions are: ${known.join(', ')}${didYouMean(fn[1]!, known)}`;
  }
  return `invalid expression ${q(source)}: ${message}`;
}

function fieldName(pointer: string): string {
  const segs = pointer.split('/');
  const last = segs[segs.length - 1]!;
  return /^\d+$/.test(last) ? `\`${segs[segs.length - 2]}\` item ${Number(last) + 1}` : q(last);
}

function checkForEach(wf: Workflow, report: Report): void {
  wf.steps.forEach((s, i) => {
    if (s.forEach === undefined) {
      for (const [key, value] of [['max-parallel', s.maxParallel], ['max-items', s.maxItems]] as const) {
        if (value !== undefined) report(`/steps/${i}/${key}`, `\`${key}\` of step ${q(s.id)} has no effect without \`for-each\``, { key: true, warning: true });
      }
      return;
    }
    const pointer = `/steps/${i}/for-each`;
    if (s.kind !== 'agent' && s.kind !== 'run') {
      report(pointer, `\`for-each\` of step ${q(s.id)} has no effect: only agent and run steps fan out, and this is a ${q(s.kind)} step`, { key: true });
      return;
    }
    if (!isWholeExpression(s.forEach)) {
      report(pointer, `\`for-each\` of step ${q(s.id)} must be one \`\${{ }}\` expression that yields a list, like \`\${{ steps.plan.outputs.tasks }}\``);
      return;
    }
    let expr;
    try {
      expr = parseExpression(findSegments(s.forEach.trim())[0]!.source);
    } catch {
      return; // reported by the expression check
    }
    const refs = references(expr);
    // Only a bare reference can be typed statically; functions like fromJSON may yield anything.
    if (functionsCalled(expr).length || refs.length !== 1) return;
    const [ctx, name, part, ...rest] = refs[0]!.path;
    if (ctx === 'inputs' && name && wf.inputs[name]) {
      report(pointer, `\`for-each\` of step ${q(s.id)} reads input ${q(name)}, which is a ${wf.inputs[name]!.type}, not a list; use \`fromJSON(inputs.${name})\` if it holds a JSON list`);
    } else if (ctx === 'steps' && name && part === 'outputs') {
      const step = stepById(wf, name);
      const schema = step && (step.kind === 'agent' || step.kind === 'run') ? step.outputs : undefined;
      if (schema === undefined) return;
      const type = schemaTypeAt(schema, rest);
      if (type !== undefined && !type.includes('array')) {
        const path = ['steps', name, 'outputs', ...rest].join('.');
        report(pointer, `\`for-each\` of step ${q(s.id)} reads ${q(path)}, which the \`outputs\` of step ${q(name)} declare as ${type.join(' or ')}, not a list`);
      }
    }
  });
}

/** The declared `type` at a property path of a schema; undefined when the schema does not say. */
function schemaTypeAt(schema: JsonSchema, path: string[]): string[] | undefined {
  let s: unknown = schema;
  for (const key of path) {
    const props = (s as { properties?: Record<string, unknown> } | undefined)?.properties;
    if (!props || typeof props !== 'object' || !(key in props)) return undefined;
    s = props[key];
  }
  const t = (s as { type?: unknown } | undefined)?.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.map(String);
  return undefined;
}

function checkInputs(wf: Workflow, report: Report): void {
  for (const [name, input] of Object.entries(wf.inputs)) {
    const d = input.default;
    if (d === undefined) continue;
    const pointer = `/inputs/${name}/default`;
    if (input.type === 'choice' && !(input.options ?? []).includes(String(d))) {
      report(pointer, `the default of input ${q(name)} is ${q(d)}, which is not one of its options: ${listOf(input.options ?? [])}`);
    } else if ((input.type === 'number' && typeof d !== 'number') || (input.type === 'boolean' && typeof d !== 'boolean') || (input.type === 'string' && typeof d !== 'string')) {
      report(pointer, `the default of input ${q(name)} is ${q(d)}, which is not a ${input.type}`);
    }
  }
}

function checkTriggers(wf: Workflow, report: Report): void {
  wf.on.commands.forEach((c, i) => {
    if (BUILTIN_COMMANDS.includes(c)) {
      report(`/on/commands/${i}`, `command ${q(c)} is one of baton's own (\`/baton ${c}\`); built-in commands are: ${BUILTIN_COMMANDS.join(', ')}`);
    }
  });
  const filters: [string, readonly string[] | undefined][] = [
    ['pull_request/branches', wf.on.pullRequest?.branches],
    ['pull_request/paths', wf.on.pullRequest?.paths],
    ['workflow_run/branches', wf.on.workflowRun?.branches],
  ];
  for (const [where, patterns] of filters) {
    for (const e of filterPatternErrors(patterns ?? [])) {
      const what = e.list ? `\`on.${where.replace('/', '.')}\`: ${e.message}` : `\`on.${where.replace('/', '.')}\`: ${JSON.stringify(patterns![e.index])} is not a filter pattern GitHub reads: ${e.message}`;
      report(`/on/${where}/${e.index}`, what);
    }
  }
}

/**
 * `protected-paths: [..]` names repository paths that are protected (a folder ends with `/`):
 * anything else is a mistake that would make the step's results be refused all the same.
 */
function checkProtectedPathLists(wf: Workflow, report: Report): void {
  wf.steps.forEach((s, i) => {
    if (!Array.isArray(s.allowProtectedPaths)) return;
    s.allowProtectedPaths.forEach((entry, j) => {
      const pointer = `/steps/${i}/protected-paths/${j}`;
      const parts = entry.replace(/\/$/, '').split('/');
      if (entry.startsWith('/') || entry.includes('\\') || parts.some((p) => p === '' || p === '.' || p === '..')) {
        report(pointer, `\`protected-paths\` of step ${q(s.id)}: ${JSON.stringify(entry)} is not a path inside the repository (write it relative to the root, with \`/\`, a folder ending in \`/\`)`);
      } else if (!protectedPathKind(entry.endsWith('/') ? `${entry}x` : entry)) {
        report(pointer, `\`protected-paths\` of step ${q(s.id)}: ${JSON.stringify(entry)} is not a protected path, so listing it changes nothing (see the table in docs/agents.md)`, { warning: true });
      }
    });
  });
}
