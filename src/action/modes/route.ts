// mode: route — prints the concurrency key of the event (output `key`) for the job that
// handles it: `concurrency: baton-${{ needs.route.outputs.key }}`. Needs no token. An
// event that concerns no run gives an empty key, and the handling job is skipped.
import * as core from '@actions/core';
import { readEvent } from '../event.ts';
import type { Inputs } from '../inputs.ts';
import { ownActivity } from '../own-events.ts';
import { concurrencyKey } from '../route-key.ts';

export async function routeMode(_inputs: Inputs): Promise<void> {
  const ev = readEvent(process.env);
  const own = ownActivity(ev.name, ev.payload);
  if (own) {
    core.setOutput('key', '');
    core.info(`baton route: this ${ev.name} event is ${own}; nothing to do`);
    return;
  }
  const key = concurrencyKey(ev.name, ev.payload) ?? '';
  core.setOutput('key', key);
  core.info(key ? `baton route: ${ev.name} → concurrency group baton-${key}` : `baton route: this ${ev.name} event concerns no baton run`);
}
