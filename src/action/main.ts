// The Action: read the inputs, run the mode they name. A mode throws only for baton's own
// failures (bad inputs, a broken setup); the step then fails with that message.
import * as core from '@actions/core';
import { redact, secretValues } from '../agents/redact.ts';
import { readInputs } from './inputs.ts';
import { MODES } from './modes/index.ts';

export async function main(): Promise<void> {
  try {
    const inputs = readInputs(process.env, Object.keys(MODES));
    await MODES[inputs.mode]!(inputs);
  } catch (err) {
    // The log masks registered secrets only, not their encodings: hide every form.
    core.setFailed(`baton: ${redact((err as Error).message, secretValues(process.env))}`);
  }
}
