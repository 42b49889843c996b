/**
 * The App's webhook deliveries, as an operator reads and redelivers them (REST docs "REST API
 * endpoints for GitHub App webhooks": List deliveries / Get a delivery / Redeliver a delivery
 * for an app webhook; the App's JWT only):
 *
 * - the list is newest first, `per_page` (default 30, at most 100) and `cursor` ("the starting
 *   delivery from which the page of deliveries is fetched": the `Link` header's next cursor),
 *   `status=success` for status codes 200–399 and `failure` for 400–599;
 * - every attempt is a delivery of its own (`id`); its `guid` is the `X-GitHub-Delivery` header,
 *   the same for every attempt of one event; a redelivery says `redelivery: true`;
 * - redelivering answers 202 and sends the same payload again with the same guid.
 *
 * A delivery the App never answered (the connection failed, or a dropped fault) is listed with
 * `status_code` 0: what GitHub shows then is not documented.
 */
import type { Emulator } from '../emulator.ts';
import { HttpError, notFound, type RouteContext } from '../http/router.ts';
import type { Delivery } from '../webhooks.ts';

const CURSOR = /^v1_(\d+)$/;

function statusOf(d: Delivery): { status: string; status_code: number } {
  if (d.status === undefined) return { status: d.dropped || d.error !== undefined ? 'failed to connect to host' : 'pending', status_code: 0 };
  return { status: d.status >= 200 && d.status < 300 ? 'OK' : `Invalid HTTP Response: ${d.status}`, status_code: d.status };
}

function item(d: Delivery) {
  const installation = d.payload.installation as { id?: number } | undefined;
  const repository = d.payload.repository as { id?: number } | undefined;
  return {
    id: d.attemptId,
    guid: d.id,
    delivered_at: d.at,
    redelivery: d.redelivery,
    duration: d.sentAt !== undefined && d.answeredAt !== undefined ? (d.answeredAt - d.sentAt) / 1000 : 0,
    ...statusOf(d),
    event: d.event,
    action: d.action ?? null,
    installation_id: installation?.id ?? null,
    repository_id: repository?.id ?? null,
    throttled_at: null,
  };
}

export function registerAppDeliveryRoutes(emulator: Emulator): void {
  const { router, webhooks } = emulator;
  const attempt = (ctx: RouteContext): Delivery => {
    const id = Number(ctx.params.delivery_id);
    const found = webhooks.deliveries.find((d) => d.attemptId === id);
    if (found === undefined) throw notFound();
    return found;
  };

  router.add(
    'GET',
    '/app/hook/deliveries',
    (ctx) => {
      const perPage = Math.min(Math.max(Number(ctx.query.get('per_page') ?? 30) || 30, 1), 100);
      const cursor = ctx.query.get('cursor');
      const from = cursor === null ? Infinity : Number(CURSOR.exec(cursor)?.[1] ?? NaN);
      if (Number.isNaN(from)) throw new HttpError(400, 'Bad Request');
      const wanted = ctx.query.get('status');
      let all = webhooks.deliveries.filter((d) => d.attemptId <= from).sort((a, b) => b.attemptId - a.attemptId);
      if (wanted !== null) {
        all = all.filter((d) => {
          const code = statusOf(d).status_code;
          return wanted === 'success' ? code >= 200 && code <= 399 : code >= 400 && code <= 599;
        });
      }
      const page = all.slice(0, perPage);
      const next = all[perPage];
      const headers: Record<string, string> = {};
      if (next !== undefined) {
        const query = new URLSearchParams(ctx.query);
        query.set('per_page', String(perPage));
        query.set('cursor', `v1_${next.attemptId}`);
        headers.link = `<${emulator.apiUrl}/app/hook/deliveries?${query.toString()}>; rel="next"`;
      }
      return { status: 200, body: page.map(item), headers };
    },
    { auth: 'app' },
  );

  router.add(
    'GET',
    '/app/hook/deliveries/{delivery_id}',
    (ctx) => {
      const d = attempt(ctx);
      return {
        status: 200,
        body: {
          ...item(d),
          url: webhooks.url ?? '',
          request: { headers: d.requestHeaders ?? null, payload: d.payload },
          response: { headers: d.responseHeaders ?? null, payload: d.responseBody ?? null },
        },
      };
    },
    { auth: 'app' },
  );

  router.add(
    'POST',
    '/app/hook/deliveries/{delivery_id}/attempts',
    (ctx) => {
      webhooks.redeliverAttempt(attempt(ctx));
      return { status: 202, body: {} };
    },
    { auth: 'app' },
  );
}
