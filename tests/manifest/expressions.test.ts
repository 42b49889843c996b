import { describe, expect, it } from 'vitest';
import {
  evaluateCondition,
  evaluateTemplate,
  findSegments,
  functionsCalled,
  parseExpression,
  references,
} from '../../src/manifest/expressions.ts';

const ctx = {
  inputs: { scope: '' },
  issue: { number: 42, title: 'Crash on save' },
  steps: { plan: { outputs: { tasks: ['a', 'b'] }, status: 'succeeded' } },
};

describe('expressions', () => {
  it('keeps a whole-expression template typed', () => {
    expect(evaluateTemplate('${{ steps.plan.outputs.tasks }}', ctx)).toEqual(['a', 'b']);
    expect(evaluateTemplate('  ${{ issue.number }} ', ctx)).toBe(42);
  });

  it('interpolates embedded expressions into text, objects as JSON', () => {
    expect(evaluateTemplate('Issue #${{ issue.number }}: ${{ issue.title }}', ctx)).toBe('Issue #42: Crash on save');
    expect(evaluateTemplate('tasks=${{ steps.plan.outputs.tasks }}', ctx)).toBe('tasks=["a","b"]');
  });

  it('evaluates conditions with or without ${{ }}', () => {
    expect(evaluateCondition("${{ inputs.scope == '' }}", ctx)).toBe(true);
    expect(evaluateCondition("inputs.scope != ''", ctx)).toBe(false);
    expect(evaluateCondition("contains(steps.plan.outputs.tasks, 'b')", ctx)).toBe(true);
  });

  it('finds segments even when a string literal holds }}', () => {
    expect(findSegments("a ${{ format('}}{0}', 1) }} b").map((s) => s.source)).toEqual(["format('}}{0}', 1)"]);
  });

  it('lists the context paths and functions an expression uses', () => {
    const expr = parseExpression("contains(steps.plan.outputs.tasks, 'a') && steps['x'].status");
    expect(references(expr).map((r) => r.path.join('.'))).toEqual(['steps.plan.outputs.tasks', 'steps.x.status']);
    expect(functionsCalled(parseExpression("toJSON(fromJSON('1'))"))).toEqual(['toJSON', 'fromJSON']);
  });

  it('rejects unknown contexts and functions', () => {
    expect(() => parseExpression('secrets.TOKEN')).toThrow(/Unrecognized named-value: 'secrets'/);
    expect(() => parseExpression('nope(1)')).toThrow(/Unrecognized function: 'nope'/);
  });
});
