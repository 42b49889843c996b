// A run without an issue (a local run: number 0; a run on a pull request: no issue at all)
// says no `#0` and no bare `#` where its workflow writes `#${{ issue.number }}`: not in its
// questions, an approval's message, prompts, nor its pull request. A run on an issue keeps
// the reference.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command, Json } from '../../src/engine/index.ts';
import { withoutIssueReferences } from '../../src/engine/issue-refs.ts';
import { loadWorkflowFile } from '../../src/manifest/load.ts';
import { agent, approve, ask, pullRequest, workflow } from './builder.ts';
import { Run } from './harness.ts';

const ROOT = new URL('../..', import.meta.url).pathname;

const WF = workflow([
  ask('clarify', { questions: ['Which part of the code should the fix for issue #${{ issue.number }} touch?'] }),
  agent('plan', { writes: false, prompt: 'Plan a fix for issue #${{ issue.number }}: ${{ issue.title }}\nKeep the fix (#${{ issue.number }}) small.' }),
  approve('gate', { message: 'Ship the fix (#${{ issue.number }})?' }),
  pullRequest('pr', { title: 'Fix #${{ issue.number }}: ${{ issue.title }}', body: 'Fixes #${{ issue.number }}.\n\nWrote the fix for issue #${{ issue.number }}.\n' }),
]);

/** Every text the run puts in front of a person or an agent, up to its pull request. */
function texts(issue: Json): string[] {
  const r = new Run(WF);
  const out: string[] = [];
  const take = (cmds: Command[]): void => {
    for (const c of cmds) {
      if (c.type === 'post-questions') out.push(...c.questions);
      if (c.type === 'dispatch-worker' && c.prompt !== null) out.push(c.prompt);
      if (c.type === 'ensure-pull-request') out.push(c.title, c.body);
    }
  };
  take(r.start({ issue }));
  take(r.send({ type: 'questions.answered', step: 'clarify', actor: 'alice', permission: 'admin', answers: ['the parser'] }));
  take(r.finish('plan', null));
  out.push(r.step('gate').note ?? '');
  take(r.send({ type: 'approval.given', actor: 'alice', permission: 'admin' }));
  return out;
}

describe('issue references in a run without an issue', () => {
  it.each([
    ['a local run (issue number 0)', { number: 0, title: 'Login fails', body: 'x' }],
    ['a run on a pull request (no issue)', null],
  ])('%s: no #0 and no bare # in questions, prompts or the pull request', (_what, issue) => {
    const all = texts(issue).join('\n---\n');
    expect(all).not.toMatch(/#0\b/);
    expect(all).not.toMatch(/#(?!\d)/);
    expect(all).toContain('Which part of the code should the fix for the issue touch?');
    expect(all).toContain('Plan a fix for the issue:');
    expect(all).toContain('Keep the fix small.');
    expect(all).not.toMatch(/^Fixes/m);
    expect(all).toContain('Wrote the fix for the issue.');
    expect(all).toContain('Ship the fix?');
  });

  it('a run on an issue keeps #N everywhere', () => {
    const all = texts({ number: 42, title: 'Login fails', body: 'x' }).join('\n');
    expect(all).toContain('the fix for issue #42 touch?');
    expect(all).toContain('Plan a fix for issue #42:');
    expect(all).toContain('Fix #42: Login fails');
    expect(all).toMatch(/^Fixes #42\.$/m);
  });

  it('rewrites every issue reference of the bundled library, which then reads as a sentence', () => {
    const dir = join(ROOT, 'workflows-library');
    const strings: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.yml'))) walk(loadWorkflowFile(join(dir, f)).loaded!.workflow.steps);
    const referring = strings.filter((s) => /#\$\{\{\s*issue\.number\s*\}\}/i.test(s));
    expect(referring.length).toBeGreaterThan(5);
    for (const s of referring) {
      const out = withoutIssueReferences(s);
      expect(out, s).not.toMatch(/issue\.number/i);
      // No word left dangling where the reference was: "the fix for touch?", "fixes issue and".
      expect(out, s).not.toMatch(/\bfor\s+touch\b|(?<!\b(?:the|of)\s+)\bissue\s+(?:and|is|asks)\b|\s[.,:?]/i);
    }
  });
});
