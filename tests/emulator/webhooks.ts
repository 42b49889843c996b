/**
 * Webhook deliveries: each event is completed (installation, repository, sender),
 * validated against @octokit/webhooks-schemas — an invalid payload is a bug of the
 * emulator and throws — signed like GitHub signs it and POSTed to the configured URL,
 * in order, after the API answer that caused it: one at a time (each waits for the
 * previous answer) or, with `overlap`, as GitHub does — each sent as soon as it is due,
 * without waiting for earlier answers, so that deliveries are handled concurrently
 * (deliveries overlap and arrive out of order on GitHub: quarkiverse/quarkus-github-app
 * issue #460, SpyglassMC/Spyglass issue #1734, google/go-github issue #2706), or with
 * `shuffle`, overlapping and in a seeded random order (GitHub guarantees no order). Faults
 * (faults.ts) may drop, duplicate, delay or reorder a delivery; every delivery attempt is kept
 * in `deliveries`.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { prng, type Faults } from './faults.ts';
import type { Shapes } from './shapes.ts';
import type { Repo, Store } from './store.ts';
import { validateWebhook } from './webhook-schemas.ts';

export interface Delivery {
  /** `X-GitHub-Delivery` (the deliveries API's `guid`); a duplicate keeps the id of the original, as a redelivery does. */
  id: string;
  /** This attempt's number in the deliveries API (`GET /app/hook/deliveries`): each attempt has its own. */
  attemptId: number;
  /** The headers it was sent with, and the receiver's answer (the deliveries API shows them). */
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  event: string;
  action?: string;
  payload: Record<string, unknown>;
  /** Receiver's status; undefined while pending or when no URL is configured. */
  status?: number;
  /** When it was sent and answered (performance.now()): tests check deliveries overlapped. */
  sentAt?: number;
  answeredAt?: number;
  error?: string;
  dropped: boolean;
  redelivery: boolean;
  at: string;
}

export interface EmitContext {
  /** The repository the event is about (fills `repository` and `installation`). */
  owner?: string;
  repo?: string;
  /** Login of whoever caused the event (fills `sender`). */
  sender?: string;
}

export const HOOK_ID = 1;

export class Webhooks {
  readonly deliveries: Delivery[] = [];
  url: string | undefined;
  secret: string;
  /** Deliveries overlap: sent without waiting for the answers to earlier ones. */
  overlap: boolean;
  /**
   * GitHub guarantees no order: with a seed, deliveries overlap and each waits a seeded
   * 0–`jitterMs` before it is sent, so deliveries due close together arrive in a shuffled
   * order. The same seed gives the same waits in the same order of emission (a failure replays).
   */
  shuffle: { seed: number; jitterMs: number } | undefined;
  private random: () => number = Math.random;
  /** Events the receiver subscribes to (configure); undefined: every event. */
  private events: Set<string> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private readonly inFlight = new Set<Promise<void>>();
  private held: (() => Promise<void>)[] = [];
  private readonly listeners = new Set<(delivery: Delivery) => void>();
  private lastAttemptId = 90_000_000_000;

  constructor(
    private readonly store: Store,
    private readonly shapes: Shapes,
    private readonly faults: Faults,
    private readonly onViolation: (message: string) => void,
    options: { url?: string; secret?: string; overlap?: boolean } = {},
  ) {
    this.url = options.url;
    this.secret = options.secret ?? 'development';
    this.overlap = options.overlap ?? false;
    this.shuffle = undefined;
  }

  /**
   * `events`: the events the receiver subscribes to (a GitHub App's `default_events`): GitHub sends
   * an App only those ("Webhook events and payloads": an App receives the events it subscribes to).
   * Others still happen (Actions sees them through onEmit) but are neither sent nor recorded.
   */
  configure(options: { url?: string; secret?: string; overlap?: boolean; events?: string[]; shuffle?: { seed: number; jitterMs: number } | null }): void {
    if (options.shuffle !== undefined) {
      this.shuffle = options.shuffle ?? undefined;
      if (options.shuffle) this.random = prng(options.shuffle.seed);
    }
    if (options.events !== undefined) this.events = new Set(options.events);
    if (options.url !== undefined) this.url = options.url;
    if (options.secret !== undefined) this.secret = options.secret;
    if (options.overlap !== undefined) this.overlap = options.overlap;
  }

  /** Called for every delivery as it is queued (before it is sent). */
  onEmit(listener: (delivery: Delivery) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * An event that happens without a webhook (readings.ts `customRefPushRuns`: a push to a custom
   * ref): completed and validated as `emit` does, told to the `onEmit` listeners (Actions) only.
   */
  notify(event: string, payload: Record<string, unknown>, context: EmitContext = {}): void {
    const full = this.complete(payload, context);
    const problem = validateWebhook(event, full);
    if (problem !== null) throw new Error(`webhook ${problem}`);
    const delivery: Delivery = { id: randomUUID(), attemptId: this.nextAttemptId(), event, payload: full, dropped: false, redelivery: false, at: new Date().toISOString() };
    for (const listener of this.listeners) listener(delivery);
  }

  /** `X-Hub-Signature-256` for a body. */
  sign(body: string): string {
    return `sha256=${createHmac('sha256', this.secret).update(body).digest('hex')}`;
  }

  /** Completes, validates and queues one event. Throws when the payload breaks the schema. */
  emit(event: string, payload: Record<string, unknown>, context: EmitContext = {}): Delivery {
    const full = this.complete(payload, context);
    const problem = validateWebhook(event, full);
    if (problem !== null) {
      const message = `webhook ${problem}`;
      this.onViolation(message);
      throw new Error(message);
    }
    const action = typeof full.action === 'string' ? full.action : undefined;
    const delivery: Delivery = { id: randomUUID(), attemptId: this.nextAttemptId(), event, ...(action === undefined ? {} : { action }), payload: full, dropped: false, redelivery: false, at: new Date().toISOString() };
    for (const listener of this.listeners) listener(delivery);
    if (this.events && !this.events.has(event)) return delivery;
    this.deliveries.push(delivery);

    const plan = this.faults.webhook(event, action);
    if (plan.drop) {
      delivery.dropped = true;
      return delivery;
    }
    const copies = Array.from({ length: plan.copies }, (_, i) => (i === 0 ? delivery : { ...delivery, attemptId: this.nextAttemptId(), redelivery: true }));
    for (const [i, copy] of copies.entries()) {
      if (i > 0) this.deliveries.push(copy);
      const send = () => this.send(copy);
      if (plan.reorder) {
        this.held.push(send);
      } else if (plan.delayMs > 0) {
        this.track(new Promise<void>((resolve) => setTimeout(resolve, plan.delayMs)).then(send));
      } else {
        this.enqueue(send);
      }
    }
    return delivery;
  }

  /** Sends a recorded delivery again (same id, like "Redeliver" in GitHub's UI). */
  redeliver(id: string): Promise<void> {
    const original = this.deliveries.find((d) => d.id === id);
    if (original === undefined) throw new Error(`no delivery ${id}`);
    this.redeliverAttempt(original);
    return this.idle();
  }

  /**
   * A new attempt of a recorded one, queued (the deliveries API's redelivery answers 202 before
   * it is sent): the same payload and `X-GitHub-Delivery` guid, `redelivery: true`, its own attempt id.
   */
  redeliverAttempt(original: Delivery): Delivery {
    const copy: Delivery = { ...original, attemptId: this.nextAttemptId(), dropped: false, redelivery: true, at: new Date().toISOString() };
    for (const key of ['status', 'error', 'sentAt', 'answeredAt', 'requestHeaders', 'responseHeaders', 'responseBody'] as const) delete copy[key];
    this.deliveries.push(copy);
    this.enqueue(() => this.send(copy));
    return copy;
  }

  private nextAttemptId(): number {
    return ++this.lastAttemptId;
  }

  /** The most deliveries that were awaiting their answers at the same time. */
  mostInFlight(): number {
    const edges = this.deliveries.flatMap((d) => (d.sentAt === undefined || d.answeredAt === undefined ? [] : [[d.sentAt, 1] as const, [d.answeredAt, -1] as const]));
    edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let open = 0;
    let most = 0;
    for (const [, step] of edges) most = Math.max(most, (open += step));
    return most;
  }

  /** Resolves when every queued, delayed and held delivery has been sent. */
  async idle(): Promise<void> {
    for (;;) {
      const chain = this.chain;
      await chain;
      if (chain !== this.chain) continue;
      if (this.inFlight.size > 0) {
        await Promise.all([...this.inFlight]);
        continue;
      }
      if (this.held.length > 0) {
        this.flushHeld();
        continue;
      }
      return;
    }
  }

  private enqueue(send: () => Promise<void>): void {
    if (this.shuffle) {
      const wait = Math.floor(this.random() * (this.shuffle.jitterMs + 1));
      this.track(new Promise<void>((resolve) => setTimeout(resolve, wait)).then(send));
      this.flushHeld();
      return;
    }
    if (this.overlap) {
      this.track(send());
      this.flushHeld();
      return;
    }
    this.chain = this.chain.then(send).then(() => this.flushHeld());
  }

  /** Held (reordered) deliveries go out after the next delivery in order, newest first. */
  private flushHeld(): void {
    const held = this.held.reverse();
    this.held = [];
    for (const send of held) {
      if (this.overlap || this.shuffle) this.track(send());
      else this.chain = this.chain.then(send);
    }
  }

  private track(promise: Promise<void>): void {
    this.inFlight.add(promise);
    void promise.finally(() => this.inFlight.delete(promise));
  }

  private complete(payload: Record<string, unknown>, context: EmitContext): Record<string, unknown> {
    const full = { ...payload };
    let repo: Repo | undefined;
    if (context.owner !== undefined && context.repo !== undefined) repo = this.store.repo(context.owner, context.repo);
    const named = (payload.repository as { full_name?: string } | undefined)?.full_name;
    if (repo === undefined && named !== undefined) {
      const [owner, name] = named.split('/') as [string, string];
      repo = this.store.repo(owner, name);
    }
    if (repo !== undefined) {
      full.repository ??= this.shapes.repository(repo);
      const id = repo.installationId;
      full.installation ??= { id, node_id: `MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u${id}` };
    }
    full.sender ??= this.shapes.user(context.sender ?? repo?.owner ?? this.store.app.botLogin);
    return full;
  }

  private async send(delivery: Delivery): Promise<void> {
    if (this.url === undefined) return;
    const body = JSON.stringify(delivery.payload);
    delivery.sentAt = performance.now();
    try {
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'GitHub-Hookshot/emulator',
        'x-github-event': delivery.event,
        'x-github-delivery': delivery.id,
        'x-github-hook-id': String(HOOK_ID),
        'x-github-hook-installation-target-type': 'integration',
        'x-github-hook-installation-target-id': String(this.store.app.id),
        'x-hub-signature': `sha1=${createHmac('sha1', this.secret).update(body).digest('hex')}`,
        'x-hub-signature-256': this.sign(body),
      };
      delivery.requestHeaders = headers;
      const response = await fetch(this.url, { method: 'POST', headers, body });
      delivery.status = response.status;
      delivery.responseHeaders = Object.fromEntries(response.headers);
      delivery.responseBody = await response.text();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
    delivery.answeredAt = performance.now();
  }
}

