// Text baton's bot posts for people — questions, a pull request's title and body — may carry
// values an agent produced or anyone who can open an issue wrote. Their `@mentions` reach people
// in baton's name, so they are made inert (a zero-width space after the `@`); the manifest's own
// words, and values a person with the role gave, mention whom they name.
import { describe, expect, it } from 'vitest';
import { quietMentions } from '../../src/engine/mentions.ts';
import type { Command } from '../../src/engine/index.ts';
import { agent, ask, pullRequest, workflow } from './builder.ts';
import { Run } from './harness.ts';

const ZWSP = '\u200B';

function texts(cmds: Command[]): string[] {
  const out: string[] = [];
  for (const c of cmds) {
    if (c.type === 'post-questions') out.push(...c.questions);
    if (c.type === 'ensure-pull-request') out.push(c.title, c.body);
  }
  return out;
}

describe('mentions in text baton posts for people', () => {
  it('leaves inline code spans as written (GitHub notifies nobody from them) and quiets the text around them', () => {
    expect(quietMentions('label `` @alice `x` `` and @bob, `@carol` ``@dan`` @erin')).toBe(`label \`\` @alice \`x\` \`\` and @${ZWSP}bob, \`@carol\` \`\`@dan\`\` @${ZWSP}erin`);
    expect(quietMentions('an unclosed ` @frank')).toBe(`an unclosed \` @${ZWSP}frank`);
  });

  it('makes an agent’s and an issue’s mentions inert in a pull request, and keeps the manifest’s own', () => {
    const wf = workflow([
      agent('impl', { writes: false }),
      pullRequest('pr', { title: '${{ steps.impl.outputs.title }} (#${{ issue.number }})', body: 'cc @octo-org/reviewers\n\n${{ steps.impl.outputs.summary }}\n\nReported: ${{ issue.body }}' }),
    ]);
    const r = new Run(wf);
    r.start({ issue: { number: 42, title: 'Crash', body: 'ping @alice and @acme/security' } });
    r.finish('impl', { title: 'Fix for @everyone', summary: 'Done. @acme/all please look; see `@decorator` and\n```\n@keep-in-code\n```\n' });
    const [title, body] = texts(r.all);
    expect(title).toBe(`Fix for @${ZWSP}everyone (#42)`);
    expect(body).toContain('cc @octo-org/reviewers');
    expect(body).toContain(`Done. @${ZWSP}acme/all please look`);
    expect(body).toContain('`@decorator`');
    expect(body).toContain('```\n@keep-in-code\n```');
    expect(body).toContain(`Reported: ping @${ZWSP}alice and @${ZWSP}acme/security`);
  });

  it('makes an agent’s questions’ mentions inert, and keeps those the manifest writes itself', () => {
    const fromAgent = workflow([agent('plan', { writes: false }), ask('clarify', { questions: '${{ steps.plan.outputs.questions }}' })]);
    const r = new Run(fromAgent);
    r.start();
    r.finish('plan', { questions: ['Should @acme/core decide?', 'Is 2 ok?'] });
    expect(texts(r.all)).toEqual([`Should @${ZWSP}acme/core decide?`, 'Is 2 ok?']);

    const written = workflow([ask('clarify', { questions: ['@alice, which branch for #${{ issue.number }}?'] })]);
    const w = new Run(written);
    expect(texts(w.start())).toEqual(['@alice, which branch for #42?']);
  });
});
