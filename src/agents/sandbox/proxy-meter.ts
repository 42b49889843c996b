// The cost of an attempt's model traffic, metered where it is spent: in the proxy that carries
// every model request of an agent whose key it holds. Each answer's usage (model-usage.ts) is
// priced from the one price table (../prices.ts) and added up; with a cap, a request is refused
// before it leaves once it could take the attempt past the cap.
//
// How far past the cap an attempt can get. Before a request goes out, the meter reserves its
// worst case: its input at ⌈bytes / 3⌉ tokens (a token is about four bytes of English or code,
// and a request's JSON carries more bytes than tokens) at the uncached input rate, plus the
// output the request allows (`max_tokens`, `max_output_tokens`, `max_completion_tokens`,
// `generationConfig.maxOutputTokens`; DEFAULT_MAX_OUTPUT when it names none) at the output rate.
// A request is refused when what was spent, what the requests still in flight reserved, and its
// own reservation together pass the cap. An answer is charged what its usage says; one whose
// usage cannot be read (cut short, not JSON) is charged its reservation. So the spend passes the
// cap only when an answer used more than its reservation allowed: more output than a request
// that named no limit was reserved for, or a prompt of more than three tokens in four bytes of
// its JSON. The bench holds the overshoot to its target (bench/figures/cost-cap.ts).
//
// An unknown model (not in the table, or not named) is priced at the highest rates of its API's
// table, and said once in the report: a cap then stops early rather than late.
import { costOf, PRICES, priceFor, type Price } from '../prices.ts';
import type { ReadUsage } from './model-usage.ts';
import type { ModelApi } from './proxy-models.ts';

/** Output tokens reserved for a request that names no limit of its own. */
export const DEFAULT_MAX_OUTPUT = 32_000;
/** Input tokens are reserved at one per this many bytes of the request. */
const BYTES_PER_TOKEN = 3;
/** The refusal's HTTP status: 402 Payment Required, which no CLI's SDK retries (they retry 408, 409, 429 and 5xx). */
export const COST_CAP_STATUS = 402;

export interface CostCap {
  /** US$ the attempt may spend on model requests. */
  usd: number;
  /** What the figure is, for the refusal and the record: "what is left of the run's max-cost-usd $5.00". */
  what: string;
}

/** One request let through: what it reserved, until its answer is charged. */
export interface Admitted {
  api: ModelApi;
  model: string | null;
  price: Price;
  reserveUsd: number;
}

export interface MeterReport {
  /** US$ the attempt's model answers cost, by the price table. */
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
  /** Model requests let through. */
  requests: number;
  /** Requests refused at the cap. */
  refused: number;
  /** The cap refused a request: the attempt ended at its cost limit. */
  capReached: boolean;
  /** The refusal's words, once the cap was reached. */
  capMessage: string | null;
  /** Models priced at their API's highest rates (not in the table). */
  unknownModels: string[];
  /** Answers whose usage could not be read, charged what was reserved for them. */
  unread: number;
}

type Json = Record<string, unknown>;
const usd = (n: number): string => `$${n.toFixed(n < 0.1 ? 4 : 2)}`;

/** The model a request names: in its body, or (Gemini) in its path `…/models/<model>:generateContent`. */
function requestModel(api: ModelApi, path: string, body: Json | null): string | null {
  if (api === 'google') {
    const m = /\/models\/([^/:?]+)/.exec(path);
    return m ? decodeURIComponent(m[1]!) : null;
  }
  return typeof body?.model === 'string' ? body.model : null;
}

/** The output tokens a request allows, in whichever field its API names them; null when it names none. */
function requestMaxOutput(body: Json | null): number | null {
  if (!body) return null;
  const config = typeof body.generationConfig === 'object' && body.generationConfig !== null ? (body.generationConfig as Json) : {};
  for (const v of [body.max_tokens, body.max_output_tokens, body.max_completion_tokens, config.maxOutputTokens]) {
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return Math.ceil(v);
  }
  return null;
}

/** The body as JSON, or null (not JSON, or not an object). */
function parseBody(body: Buffer): Json | null {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : null;
  } catch {
    return null;
  }
}

/** The refusal in the API's own error shape, so that the CLI prints it as it prints the API's errors. */
export function capRefusalBody(api: ModelApi, message: string): string {
  if (api === 'anthropic') return JSON.stringify({ type: 'error', error: { type: 'billing_error', message } });
  if (api === 'openai') return JSON.stringify({ error: { message, type: 'cost_cap_reached', param: null, code: 'cost_cap_reached' } });
  return JSON.stringify({ error: { code: COST_CAP_STATUS, message, status: 'RESOURCE_EXHAUSTED' } });
}

export class CostMeter {
  private spent = 0;
  private reserved = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private requests = 0;
  private refused = 0;
  private capMessage: string | null = null;
  private unread = 0;
  private readonly unknown = new Set<string>();

  /** `cap` null: metered, never refused. */
  constructor(private readonly cap: CostCap | null) {}

  /** Lets the request through (reserving its worst case) or answers why not: the cost cap is reached. */
  admit(api: ModelApi, path: string, body: Buffer): { ok: true; admitted: Admitted } | { ok: false; message: string } {
    const json = parseBody(body);
    const model = requestModel(api, path, json);
    const { price, known } = priceFor(model ?? undefined, PRICES[api]);
    if (!known && this.unknown.size < 20) this.unknown.add(`${api}: ${(model ?? '(none named)').slice(0, 100)}`);
    const maxOutput = requestMaxOutput(json) ?? DEFAULT_MAX_OUTPUT;
    const reserveUsd = costOf(price, { input: Math.ceil(body.length / BYTES_PER_TOKEN), cacheRead: 0, cacheWrite: 0, output: maxOutput });
    if (this.cap) {
      if (this.capMessage === null && this.spent + this.reserved + reserveUsd > this.cap.usd) {
        this.capMessage =
          `baton: cost cap reached — this step may spend ${usd(this.cap.usd)} on its model (${this.cap.what}); ${usd(this.spent)} is spent` +
          `${this.reserved > 0 ? ` and ${usd(this.reserved)} held for answers still coming` : ''}, and this request could cost up to ${usd(reserveUsd)} ` +
          `(${maxOutput} output tokens${model ? ` of ${model.slice(0, 100)}` : ''}). The sandbox's proxy refuses the agent's model requests from here on; the work so far is kept.`;
      }
      if (this.capMessage !== null) {
        this.refused++;
        return { ok: false, message: this.capMessage };
      }
    }
    this.requests++;
    this.reserved += reserveUsd;
    return { ok: true, admitted: { api, model, price, reserveUsd } };
  }

  /** The answer of an admitted request ended: charged what its usage says, or its reservation when that cannot be read. */
  settle(a: Admitted, status: number, usage: ReadUsage | null): void {
    this.reserved = Math.max(0, this.reserved - a.reserveUsd);
    const ok = status >= 200 && status < 300;
    let cost = 0;
    if (usage?.final) {
      cost = costOf(usage.model && a.model === null ? priceFor(usage.model, PRICES[a.api]).price : a.price, usage.tokens);
      this.inputTokens += usage.tokens.input + usage.tokens.cacheRead + usage.tokens.cacheWrite;
      this.outputTokens += usage.tokens.output;
    } else if (ok) {
      // A 2xx answer was being generated: what it used is unknown, so its worst case is charged.
      this.unread++;
      cost = a.reserveUsd;
    }
    // An error answer without usage (a 4xx, a 5xx) is not billed by the APIs.
    this.spent = Math.round((this.spent + cost) * 1e6) / 1e6;
  }

  report(): MeterReport {
    return {
      costUsd: this.spent,
      inputTokens: this.inputTokens,
      outputTokens: this.outputTokens,
      requests: this.requests,
      refused: this.refused,
      capReached: this.capMessage !== null,
      capMessage: this.capMessage,
      unknownModels: [...this.unknown],
      unread: this.unread,
    };
  }
}
