// Round 3, attack 4: an edited comment taken as its author's command. GitHub lets anyone with
// write access edit anyone's comment and keeps the author's name on it. A writer turns an
// admin's "I'll look on Monday." into `/baton approve` and posts "ping": in Actions-only mode
// the ping's job catches up on the thread (src/action/catch-up.ts), which read the comment's
// body as it is now and approved an admin-only gate "by @alice". In App mode the `edited`
// delivery and a redelivery of the `created` one must not be misread either. The door:
// src/app/handlers/comment.ts (`editedSincePosted`, src/hosts/github/comment-command.ts) —
// a comment acts only as posted; its author is told once that the edited one did nothing.
import { afterEach, describe, expect, it } from 'vitest';
import { startActionsOnly, type ActionsOnly } from '../actions-only/harness.ts';
import { openLabelled, startHarness, type Harness } from '../app/harness.ts';

const o = { owner: 'acme', repo: 'widgets' };

const GATED = `name: gated
on: { labels: ["baton:gated"] }
steps:
  - id: gate
    approve: { roles: [admin] }
`;

/** What the reply to an edited comment says (comment.ts `onEdited`). */
const TOLD = /@alice, comment \d+ was edited after it was posted, so baton did nothing with it/;

let actions: ActionsOnly | undefined;
let app: Harness | undefined;
afterEach(async () => {
  await actions?.close();
  await app?.close();
  actions = undefined;
  app = undefined;
});

describe("round 3: an edited comment is never its author's command", () => {
  it("Actions-only: a writer's edit of an admin's remark into `/baton approve`, then \"ping\", approves nothing; the admin is told once", async () => {
    const h = (actions = await startActionsOnly({ init: ['--mode', 'actions'], files: { '.agents/workflows/gated.yml': GATED }, agentScript: [] }));
    h.emu.store.setRole('acme', 'widgets', 'wendy', 'write');
    const n = (await h.as('alice').rest.issues.create({ ...o, title: 'Gate it', body: 'Please.', labels: ['baton:gated'] })).data.number;
    await h.settle();
    const comments = async () => (await h.as('alice').rest.issues.listComments({ ...o, issue_number: n })).data;
    const record = async () => (await comments()).find((c) => c.body?.includes('baton:record'))?.body ?? '';
    expect(await record()).toMatch(/gate \| running/);

    const remark = (await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: "I'll look on Monday." })).data;
    await h.settle();
    h.emu.clock.advance(60_000);
    const edited = (await h.as('wendy').rest.issues.updateComment({ ...o, comment_id: remark.id, body: '/baton approve' })).data;
    expect(edited.user?.login).toBe('alice');
    expect(Date.parse(edited.updated_at)).toBeGreaterThan(Date.parse(edited.created_at));
    await h.as('wendy').rest.issues.createComment({ ...o, issue_number: n, body: 'ping' });
    await h.settle();
    // A second ping: the notice is not written again.
    await h.as('wendy').rest.issues.createComment({ ...o, issue_number: n, body: 'ping again' });
    await h.settle();

    const body = await record();
    expect(body).not.toContain('approved by @alice');
    expect(body).toMatch(/gate \| running/);
    expect((await comments()).filter((c) => TOLD.test(c.body ?? ''))).toHaveLength(1);

    // Her own words, posted: the gate passes.
    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    expect(await record()).toContain('| gate | approved by @alice |');
  }, 90_000);

  it('App: neither the `edited` delivery nor a redelivery of the `created` one of an edited remark approves', async () => {
    const h = (app = await startHarness({ files: { '.agents/workflows/gated.yml': GATED }, roles: { alice: 'admin', wendy: 'write' } }));
    const n = await openLabelled(h, 'baton:gated');
    await h.settle();
    expect(await h.record(n)).toMatch(/gate \| running/);

    const remark = (await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: "I'll look on Monday." })).data;
    await h.settle();
    h.emu.clock.advance(60_000);
    await h.as('wendy').rest.issues.updateComment({ ...o, comment_id: remark.id, body: '/baton approve' });
    await h.settle();
    const about = (action: string) => h.emu.webhooks.deliveries.find((d) => d.event === 'issue_comment' && d.action === action && (d.payload.comment as { id: number }).id === remark.id)!;
    expect(about('edited')).toBeDefined();
    await h.emu.webhooks.redeliver(about('edited').id);
    await h.emu.webhooks.redeliver(about('created').id);
    await h.as('wendy').rest.issues.createComment({ ...o, issue_number: n, body: 'ping' });
    await h.settle();
    const record = await h.record(n);
    expect(record).not.toContain('approved by @alice');
    expect(record).toMatch(/gate \| running/);

    await h.as('alice').rest.issues.createComment({ ...o, issue_number: n, body: '/baton approve' });
    await h.settle();
    expect(await h.record(n)).toContain('| gate | approved by @alice |');
  }, 90_000);
});
