/**
 * Whether GitHub sends webhooks for a ref outside refs/heads and refs/tags (reports say no:
 * hashbang/git-signatures#7), read from the App's own delivery log (`GET /app/hook/deliveries`,
 * App JWT). A new branch is the control: without its delivery the App is not subscribed to
 * `push`/`create` (baton's app.yml is not), and the question cannot be answered.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { attempt, must } from '../observe.ts';
import { Skip, type Scenario } from '../types.ts';
import { defaultBranch, PREFIX, scratchRef } from './support.ts';

const LIST = 'GET /app/hook/deliveries';
const ONE = 'GET /app/hook/deliveries/{delivery_id}';
/** Bounded: GitHub usually delivers within seconds. */
const POLLS = 10;
const POLL_MS = 3000;
const MAX_DETAILS = 30;

export const customRefDeliveries: Scenario = {
  name: 'deliveries for custom refs',
  assumption: { row: 'Deliveries for custom refs' },
  claim: 'branch: create, push; custom ref: none',
  needs: ['app', 'appJwt'],
  routes: ['GET /repos/{owner}/{repo}', 'GET /repos/{owner}/{repo}/git/ref/{ref}', 'POST /repos/{owner}/{repo}/git/refs', 'DELETE /repos/{owner}/{repo}/git/refs/{ref}', LIST, ONE],
  requests: 6 + POLLS + MAX_DETAILS,
  async run(ctx) {
    const app = ctx.as('app');
    const jwt = ctx.as('appJwt');
    const head = await defaultBranch(ctx, app);
    const since = Date.now() - 5000;
    const branch = await scratchRef(ctx, app, `refs/heads/${PREFIX}/deliv-${ctx.id}`, head.sha);
    const custom = await scratchRef(ctx, app, `refs/baton/leases/${PREFIX}-deliv-${ctx.id}`, head.sha);
    const events = new Map<string, Set<string>>([[branch, new Set()], [custom, new Set()]]);
    const seen = new Set<string>();
    let details = 0;
    for (let poll = 0; poll < POLLS && details < MAX_DETAILS; poll++) {
      await sleep(POLL_MS);
      const list = await must(jwt.request(LIST, { per_page: 100 }), 'listing deliveries');
      for (const d of list) {
        const id = String(d.id);
        if (seen.has(id) || Date.parse(d.delivered_at) < since || !['push', 'create'].includes(d.event) || details >= MAX_DETAILS) continue;
        seen.add(id);
        details++;
        const one = await attempt(jwt.request(ONE, { delivery_id: Number(d.id) }));
        const ref = one.ok ? (one.data.request.payload as { ref?: string } | null)?.ref : undefined;
        // `create` names a branch without refs/heads/; push names the full ref.
        for (const [name, got] of events) if (ref === name || `refs/heads/${ref}` === name) got.add(d.event);
      }
      if (events.get(branch)!.size === 2) break;
    }
    if (events.get(branch)!.size === 0) throw new Skip('no push or create delivery for a new branch either: subscribe the sandbox App to push and create');
    const show = (name: string) => [...events.get(name)!].sort().join(', ') || 'none';
    return { answer: `branch: ${show(branch)}; custom ref: ${show(custom)}` };
  },
};
