// A bench figure: one number, what it means, and the target it is held to (docs/performance.md).
export interface Figure {
  /** Key in the JSON output, snake_case with its unit at the end. */
  name: string;
  description: string;
  unit: string;
  target?: { op: '>=' | '<=' | '<'; value: number };
  measure(): number | Promise<number>;
}

export function meetsTarget(figure: Figure, value: number): boolean | null {
  if (!figure.target) return null;
  const { op, value: t } = figure.target;
  return op === '>=' ? value >= t : op === '<=' ? value <= t : value < t;
}
