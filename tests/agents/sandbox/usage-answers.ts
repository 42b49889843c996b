// Model answers as each API sends them, with the usage they report, for the stand-in model API
// (model-standin.ts) and the meter's tests: Anthropic Messages, OpenAI Chat Completions and
// Responses, Google Gemini — each whole (JSON) or streamed (server-sent events; Gemini also as
// one JSON array). The shapes follow each API's reference (see src/agents/sandbox/model-usage.ts).
import type { StandInAnswer } from './model-standin.ts';

export type Format = 'anthropic' | 'openai-chat' | 'openai-responses' | 'google';

export interface AnswerUsage {
  model: string;
  /** Uncached input tokens. */
  input: number;
  cacheRead?: number;
  cacheWrite?: number;
  output: number;
}

const sse = (events: unknown[], named = false): string[] =>
  events.map((e) => `${named && typeof e === 'object' && e && 'type' in e ? `event: ${String((e as { type: string }).type)}\n` : ''}data: ${JSON.stringify(e)}\n\n`);

/** The answer of `format` reporting `u`; streamed as server-sent events (or, `googleArray`, Gemini's JSON array) when `stream`. */
export function usageAnswer(format: Format, u: AnswerUsage, stream: boolean, googleArray = false): StandInAnswer {
  const cacheRead = u.cacheRead ?? 0;
  const cacheWrite = u.cacheWrite ?? 0;
  const json = (body: unknown): StandInAnswer => ({ status: 200, contentType: 'application/json', chunks: [JSON.stringify(body)] });
  const events = (list: unknown[], named = false): StandInAnswer => ({ status: 200, contentType: 'text/event-stream; charset=utf-8', chunks: sse(list, named) });
  switch (format) {
    case 'anthropic': {
      const usage = { input_tokens: u.input, cache_creation_input_tokens: cacheWrite, cache_read_input_tokens: cacheRead, output_tokens: u.output };
      if (!stream) return json({ id: 'msg_1', type: 'message', role: 'assistant', model: u.model, content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', usage });
      return events(
        [
          { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: u.model, content: [], usage: { ...usage, output_tokens: 1 } } },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'ping' },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'do' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ne' } },
          { type: 'content_block_stop', index: 0 },
          { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: u.output } },
          { type: 'message_stop' },
        ],
        true,
      );
    }
    case 'openai-chat': {
      const usage = { prompt_tokens: u.input + cacheRead, completion_tokens: u.output, total_tokens: u.input + cacheRead + u.output, prompt_tokens_details: { cached_tokens: cacheRead } };
      if (!stream) return json({ id: 'chatcmpl-1', object: 'chat.completion', model: u.model, choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }], usage });
      const chunk = (delta: unknown, finish: string | null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: u.model, choices: [{ index: 0, delta, finish_reason: finish }], usage: null });
      const answer = events([chunk({ role: 'assistant', content: '' }, null), chunk({ content: 'done' }, null), chunk({}, 'stop'), { id: 'chatcmpl-1', object: 'chat.completion.chunk', model: u.model, choices: [], usage }]);
      return { ...answer, chunks: [...answer.chunks, 'data: [DONE]\n\n'] };
    }
    case 'openai-responses': {
      const usage = { input_tokens: u.input + cacheRead, input_tokens_details: { cached_tokens: cacheRead }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: u.input + cacheRead + u.output };
      const response = (status: string, withUsage: boolean) => ({ id: 'resp_1', object: 'response', status, model: u.model, output: [], usage: withUsage ? usage : null });
      if (!stream) return json(response('completed', true));
      return events(
        [
          { type: 'response.created', sequence_number: 0, response: response('in_progress', false) },
          { type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'done' },
          { type: 'response.completed', sequence_number: 2, response: response('completed', true) },
        ],
        true,
      );
    }
    case 'google': {
      const meta = (candidates: number) => ({ promptTokenCount: u.input + cacheRead, cachedContentTokenCount: cacheRead || undefined, candidatesTokenCount: candidates, totalTokenCount: u.input + cacheRead + candidates });
      const part = (text: string, candidates: number, finish?: string) => ({ candidates: [{ content: { role: 'model', parts: [{ text }] }, ...(finish && { finishReason: finish }) }], usageMetadata: meta(candidates), modelVersion: u.model });
      if (!stream) return json(part('done', u.output, 'STOP'));
      const parts = [part('do', Math.floor(u.output / 2)), part('ne', u.output, 'STOP')];
      if (googleArray) return { status: 200, contentType: 'application/json; charset=UTF-8', chunks: [`[${JSON.stringify(parts[0])}`, `,\r\n${JSON.stringify(parts[1])}]`] };
      return { status: 200, contentType: 'text/event-stream', chunks: parts.map((p) => `data: ${JSON.stringify(p)}\r\n\r\n`) };
    }
  }
}

/** The model API a format's requests go to, and the path a CLI sends them on. */
export const FORMAT_ROUTES: Record<Format, { api: 'anthropic' | 'openai' | 'google'; path: (model: string, stream: boolean) => string }> = {
  anthropic: { api: 'anthropic', path: () => '/v1/messages' },
  'openai-chat': { api: 'openai', path: () => '/v1/chat/completions' },
  'openai-responses': { api: 'openai', path: () => '/v1/responses' },
  google: { api: 'google', path: (model, stream) => `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}` },
};
