// What a model response used, read from its bytes as they pass through the proxy to the agent:
// the proxy never holds a response back to read it (UsageReader takes each chunk after it was
// sent on). The three APIs the proxy serves, each in both of its answers:
//
// - Anthropic Messages: `usage` of the message (`input_tokens` not cached,
//   `cache_creation_input_tokens`, `cache_read_input_tokens`, `output_tokens`); streamed, the
//   `message_start` event carries the message's usage so far and each `message_delta` the
//   running totals — the last one is final (docs.anthropic.com, Messages → Streaming).
// - OpenAI Chat Completions: `usage` { prompt_tokens (cached ones included),
//   prompt_tokens_details.cached_tokens, completion_tokens }; streamed, on the last chunk
//   (`stream_options.include_usage`). Responses: `usage` { input_tokens,
//   input_tokens_details.cached_tokens, output_tokens } on the response, streamed on
//   `response.completed` (or `.incomplete`, `.failed`) (platform.openai.com API reference).
// - Google Gemini: `usageMetadata` { promptTokenCount (cached included),
//   cachedContentTokenCount, candidatesTokenCount, thoughtsTokenCount } on every answer; a
//   stream (`?alt=sse`, or one JSON array) repeats it with running totals, the last one final
//   (ai.google.dev API reference, GenerateContentResponse).
//
// Server-sent events are parsed as they come, one event at a time; a JSON answer is kept (up to
// MAX_JSON bytes) and parsed at its end. What cannot be read leaves `final` false: the meter then
// charges what it reserved for the request (proxy-meter.ts), never nothing.
import type { Tokens } from '../prices.ts';
import type { ModelApi } from './proxy-models.ts';

/** A JSON answer is kept up to this size to be read at its end; larger ones are charged their reservation. */
export const MAX_JSON = 16 * 1024 * 1024;
/** One server-sent event is kept up to this size; a larger one is skipped (usage events are small). */
const MAX_EVENT = 1024 * 1024;

export interface ReadUsage {
  tokens: Tokens;
  /** The model the answer names (the API's own, dated name), when it names one. */
  model: string | null;
  /** The usage read is the answer's last word: the totals billed. */
  final: boolean;
}

type Obj = Record<string, any>;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export class UsageReader {
  private readonly usage: ReadUsage = { tokens: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }, model: null, final: false };
  private readonly sse: boolean;
  private pending = '';
  private event: string[] = [];
  private eventBytes = 0;
  private json: Buffer[] = [];
  private jsonBytes = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly api: ModelApi,
    contentType: string | undefined,
  ) {
    this.sse = /^text\/event-stream\b/i.test(contentType ?? '');
  }

  /** One chunk of the answer's body, after it was sent on to the agent. */
  write(chunk: Buffer): void {
    if (!this.sse) {
      this.jsonBytes += chunk.length;
      if (this.jsonBytes <= MAX_JSON) this.json.push(chunk);
      return;
    }
    this.pending += this.decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = this.pending.indexOf('\n')) >= 0) {
      const line = this.pending.slice(0, nl).replace(/\r$/, '');
      this.pending = this.pending.slice(nl + 1);
      this.line(line);
    }
    // A line longer than an event may be is dropped as it comes, not kept whole.
    if (this.pending.length > MAX_EVENT) {
      this.pending = '';
      this.eventBytes = MAX_EVENT + 1;
    }
  }

  /** The answer ended: what it used, as far as it could be read. */
  end(): ReadUsage {
    if (this.sse) {
      if (this.pending) this.line(this.pending.replace(/\r$/, ''));
      this.line('');
    } else if (this.jsonBytes > 0 && this.jsonBytes <= MAX_JSON) {
      try {
        const body: unknown = JSON.parse(Buffer.concat(this.json).toString('utf8'));
        // Gemini's streamGenerateContent without `alt=sse` answers one JSON array of chunks.
        for (const part of Array.isArray(body) ? body : [body]) this.absorb(part);
      } catch {
        // not JSON: nothing read, `final` stays false
      }
    }
    this.json = [];
    return this.usage;
  }

  private line(line: string): void {
    if (line === '') {
      if (this.event.length && this.eventBytes <= MAX_EVENT) {
        try {
          this.absorb(JSON.parse(this.event.join('\n')));
        } catch {
          // `[DONE]`, a ping, or a cut event: no usage in it
        }
      }
      this.event = [];
      this.eventBytes = 0;
      return;
    }
    if (!line.startsWith('data:')) return;
    const data = line.slice(line.startsWith('data: ') ? 6 : 5);
    this.eventBytes += data.length;
    if (this.eventBytes <= MAX_EVENT) this.event.push(data);
  }

  private absorb(v: unknown): void {
    if (!isObj(v)) return;
    if (this.api === 'anthropic') return this.anthropic(v);
    if (this.api === 'openai') return this.openai(v);
    return this.google(v);
  }

  /** Running totals: a later reading never lowers a count (a stream's events repeat or extend them). */
  private take(t: Partial<Tokens>, model: unknown, final: boolean): void {
    const u = this.usage.tokens;
    for (const k of ['input', 'cacheRead', 'cacheWrite', 'output'] as const) u[k] = Math.max(u[k], num(t[k]));
    if (typeof model === 'string' && model) this.usage.model = model.slice(0, 200);
    if (final) this.usage.final = true;
  }

  private anthropic(v: Obj): void {
    const fromUsage = (u: Obj): Partial<Tokens> => ({ input: num(u.input_tokens), cacheRead: num(u.cache_read_input_tokens), cacheWrite: num(u.cache_creation_input_tokens), output: num(u.output_tokens) });
    if (v.type === 'message_start' && isObj(v.message)) return this.take(isObj(v.message.usage) ? fromUsage(v.message.usage) : {}, v.message.model, false);
    if (v.type === 'message_delta' && isObj(v.usage)) return this.take(fromUsage(v.usage), undefined, true);
    if (v.type === 'message' && isObj(v.usage)) return this.take(fromUsage(v.usage), v.model, true);
  }

  private openai(v: Obj): void {
    // Responses API, streamed: the response is in the event.
    if (typeof v.type === 'string' && v.type.startsWith('response.') && isObj(v.response)) {
      const r = v.response;
      const done = ['response.completed', 'response.incomplete', 'response.failed'].includes(v.type);
      return this.take(isObj(r.usage) ? responsesUsage(r.usage) : {}, r.model, done && isObj(r.usage));
    }
    if (!isObj(v.usage)) return;
    const u = v.usage;
    // Chat Completions counts prompt_tokens; Responses, input_tokens.
    if ('prompt_tokens' in u || 'completion_tokens' in u) {
      const cached = num(u.prompt_tokens_details?.cached_tokens);
      return this.take({ input: Math.max(0, num(u.prompt_tokens) - cached), cacheRead: cached, output: num(u.completion_tokens) }, v.model, true);
    }
    this.take(responsesUsage(u), v.model, true);
  }

  private google(v: Obj): void {
    if (!isObj(v.usageMetadata)) return;
    const u = v.usageMetadata;
    const cached = num(u.cachedContentTokenCount);
    // Every chunk carries the totals so far: the last one read is the answer's.
    this.take({ input: Math.max(0, num(u.promptTokenCount) - cached), cacheRead: cached, output: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount) }, v.modelVersion, true);
  }
}

function responsesUsage(u: Obj): Partial<Tokens> {
  const cached = num(u.input_tokens_details?.cached_tokens);
  return { input: Math.max(0, num(u.input_tokens) - cached), cacheRead: cached, output: num(u.output_tokens) };
}
