/** Reactions on issues and on issue comments (baton's 👀 acknowledgement). */
import type { Emulator } from '../emulator.ts';
import type { RouteContext, RouteResult } from '../http/router.ts';
import type { Reaction } from '../store.ts';
import { now } from '../store.ts';
import { commentOf } from './issues.ts';
import { actor, body, issueOf, paginate, repoOf } from './util.ts';

export function registerReactionRoutes(emulator: Emulator): void {
  const { router, store, shapes } = emulator;

  const list = (ctx: RouteContext, reactions: Reaction[]): RouteResult => {
    const content = ctx.query.get('content');
    return paginate(ctx, reactions.filter((r) => content === null || r.content === content).map((r) => shapes.reaction(r)));
  };
  /** 201 for a new reaction, 200 with the existing one when this user already reacted so. */
  const add = (ctx: RouteContext, reactions: Reaction[]): RouteResult => {
    const content = body<{ content: string }>(ctx).content;
    const user = actor(ctx);
    const existing = reactions.find((r) => r.user === user && r.content === content);
    if (existing !== undefined) return { status: 200, body: shapes.reaction(existing) };
    const reaction: Reaction = { id: store.nextId(), user, content, createdAt: now() };
    reactions.push(reaction);
    return { status: 201, body: shapes.reaction(reaction) };
  };

  router.add('GET', '/repos/{owner}/{repo}/issues/{issue_number}/reactions', (ctx) => list(ctx, issueOf(ctx, repoOf(ctx)).reactions), {
    permission: ['issues', 'read'],
  });
  router.add('POST', '/repos/{owner}/{repo}/issues/{issue_number}/reactions', (ctx) => add(ctx, issueOf(ctx, repoOf(ctx)).reactions), {
    permission: ['issues', 'write'],
  });
  router.add('GET', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', (ctx) => list(ctx, commentOf(ctx, repoOf(ctx)).reactions), {
    permission: ['issues', 'read'],
  });
  router.add('POST', '/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions', (ctx) => add(ctx, commentOf(ctx, repoOf(ctx)).reactions), {
    permission: ['issues', 'write'],
  });
}
