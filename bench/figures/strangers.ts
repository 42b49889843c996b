// What a stranger costs (docs/security.md, "Denial of service: what strangers cost"): on the
// emulator with the real App, a run waits for an answer; then someone without a role comments 30
// times, every kind of comment baton reacts to (commands, answers, a look-alike status comment).
// The App's writes to the repository in that window are counted from the emulator's request log.
// And what strangers' volume costs a maintainer: after 1,001 comments and 30 issues by someone
// without a role in one day, is the maintainer's `/baton <workflow>` refused?
import { dayClocks } from '../../tests/app/day-clocks.ts';
import { appRequests, startHarness } from '../../tests/app/harness.ts';
import { strangerFlood, TRI } from '../../tests/security/stranger-flood-scenario.ts';
import type { Figure } from './figure.ts';

const ASK = `name: ask
on: { labels: ["baton:ask"], commands: [ask] }
steps:
  - id: clarify
    ask: { questions: ["Which file?"] }
`;
const o = { owner: 'acme', repo: 'widgets' };

async function strangerWrites(): Promise<number> {
  const h = await startHarness({ files: { '.agents/workflows/ask.yml': ASK } });
  try {
    const alice = h.as('alice');
    const issue = (await alice.rest.issues.create({ ...o, title: 'Ask', body: '' })).data;
    await alice.rest.issues.addLabels({ ...o, issue_number: issue.number, labels: ['baton:ask'] });
    await h.settle();
    const record = (await alice.paginate('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', { ...o, issue_number: issue.number, per_page: 100 })).find((c) => c.body?.includes('baton:record'))?.body ?? '';
    const kinds = ['/baton ask', '/baton help', '/baton cancel', '/baton retry clarify', '/baton approve', '/baton status', '/baton nope', '/baton answer src/answer.txt', '/baton plan ask', record.replace('— running', '— succeeded')];
    const from = appRequests(h.emu).length;
    for (let i = 0; i < 30; i++) {
      await h.as('eve').rest.issues.createComment({ ...o, issue_number: issue.number, body: kinds[i % kinds.length]! });
      await h.settle();
    }
    return appRequests(h.emu)
      .slice(from)
      .filter((r) => r.method !== 'GET' && r.method !== 'HEAD' && r.route.includes(' /repos/')).length;
  } finally {
    await h.close();
  }
}

export const strangerWritesPer30Comments: Figure = {
  name: 'stranger_writes_per_30_comments',
  description: "the App's writes (comments, reactions, edits, refs) caused by 30 comments of one person without a role on a running run's thread",
  unit: 'writes',
  target: { op: '<=', value: 3 },
  measure: strangerWrites,
};

/** 1 when the maintainer's command after the flood started no run, 0 when it started one. */
async function maintainerRefusedAfterFlood(): Promise<number> {
  const clock = dayClocks();
  const h = await startHarness({ files: { '.agents/workflows/tri.yml': TRI }, now: clock.now });
  try {
    clock.toNoon(h);
    const flood = await strangerFlood(h);
    return flood.maintainerStarted ? 0 : 1;
  } finally {
    await h.close();
  }
}

export const maintainerRunsRefusedAfterStrangerFlood: Figure = {
  name: 'maintainer_runs_refused_after_stranger_flood',
  description: "maintainer commands refused after one person without a role wrote 1,001 comments and opened 30 issues in a day on a workflow every new issue starts (`authors: [any]`, `budget.per-day: { max-runs: 3 }`)",
  unit: 'runs',
  target: { op: '<=', value: 0 },
  measure: maintainerRefusedAfterFlood,
};
