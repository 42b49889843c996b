// The labels that start workflows (`on.labels`), as baton creates them on a repository:
// the App when it is installed or first reads a manifest naming one, `baton init --mode
// actions` as `gh label create` lines. One colour for all, so baton's labels stand together.
import type { Workflow } from './types.ts';

export interface TriggerLabel {
  name: string;
  /** Six hex digits without `#`, as GitHub takes it. */
  color: string;
  description: string;
}

export const TRIGGER_LABEL_COLOR = '5319e7';

/** GitHub refuses label descriptions over 100 characters. */
const MAX_DESCRIPTION = 100;

/** Every trigger label of `workflows`, once each (GitHub's label names ignore case). */
export function triggerLabels(workflows: readonly Workflow[]): TriggerLabel[] {
  const seen = new Set<string>();
  const out: TriggerLabel[] = [];
  for (const wf of workflows) {
    for (const name of wf.on.labels) {
      if (seen.has(name.toLowerCase())) continue;
      seen.add(name.toLowerCase());
      const description = `Starts the baton workflow ${wf.name} on this issue or pull request`;
      out.push({ name, color: TRIGGER_LABEL_COLOR, description: [...description].slice(0, MAX_DESCRIPTION).join('') });
    }
  }
  return out;
}
