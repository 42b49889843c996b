// The Action's modes by name: adding one is one line here.
import type { Inputs } from '../inputs.ts';
import { agentMode } from './agent.ts';
import { applyMode } from './apply.ts';
import { installClisMode } from './install-clis.ts';
import { locateMode } from './locate.ts';
import { routeMode } from './route.ts';
import { runMode } from './run.ts';
import { sandboxSetupMode } from './sandbox-setup.ts';
import { validateMode } from './validate.ts';

export type Mode = (inputs: Inputs) => Promise<void>;

export const MODES: Record<string, Mode> = {
  agent: agentMode,
  validate: validateMode,
  run: runMode,
  route: routeMode,
  apply: applyMode,
  locate: locateMode,
  'install-clis': installClisMode,
  'sandbox-setup': sandboxSetupMode,
};
