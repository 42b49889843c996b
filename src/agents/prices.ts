// What a model's tokens cost: the one price table baton meters and estimates with. The sandbox's
// proxy prices each model response's usage from it (sandbox/proxy-meter.ts) and holds an attempt
// to its cost cap with it; codex's own token counts are turned into an estimate with it when no
// proxy metered the attempt (backends/codex.ts).
//
// US$ per 1M tokens, standard (pay-as-you-go, not batch) tier. Each entry names its source and
// the date it was read there: a price that changes is changed here, with a new date.
//
// Model names are matched by prefix, longest first, at a `-`, `@` or the end: an API's dated
// name (`claude-sonnet-4-5-20250929`, `gpt-5-2025-08-07`) takes its family's price. A model not
// in the table is priced at the highest rates of its API's table (priceFor: `known: false`),
// so that a cap errs towards stopping early, never towards spending more than it says.
export interface Price {
  /** Input tokens not read from a cache. */
  input: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInput: number;
  output: number;
  /** Input tokens written to the prompt cache (Anthropic's 5-minute writes); absent: the input rate. */
  cacheWrite?: number;
  /** Rates for a request whose prompt holds more than `tokens` tokens (Gemini Pro's long-context tier). */
  above?: { tokens: number } & Omit<Price, 'above' | 'source' | 'date'>;
  source?: string;
  date?: string;
}

const ANTHROPIC_SOURCE = 'https://platform.claude.com/docs/en/about-claude/pricing';
const ANTHROPIC_MODELS_SOURCE = 'https://platform.claude.com/docs/about-claude/models/whats-new-opus-5';
const OPENAI_SOURCE = 'https://openai.com/api/pricing';
const GOOGLE_SOURCE = 'https://ai.google.dev/gemini-api/docs/pricing';

const anthropic = (input: number, output: number, source = ANTHROPIC_SOURCE, date = '2026-11-28'): Price => ({
  // Anthropic's multipliers: a 5-minute cache write costs 1.25× input, a cache hit 0.1×.
  input,
  output,
  cacheWrite: Number((input * 1.25).toFixed(6)),
  cachedInput: Number((input * 0.1).toFixed(6)),
  source,
  date,
});
const openai = (input: number, cachedInput: number, output: number, date = '2025-12-01'): Price => ({ input, cachedInput, output, source: OPENAI_SOURCE, date });
const google = (input: number, cachedInput: number, output: number, above?: Price['above']): Price => ({ input, cachedInput, output, ...(above && { above }), source: GOOGLE_SOURCE, date: '2026-03-01' });

export const ANTHROPIC_PRICES: Record<string, Price> = {
  'claude-fable-5-1': { ...anthropic(10, 50), cachedInput: 0.25 },
  'claude-fable-5': { ...anthropic(10, 50), cachedInput: 1 },
  'claude-opus-5-5': anthropic(4, 20, ANTHROPIC_MODELS_SOURCE),
  'claude-opus-5': anthropic(5, 25),
  'claude-opus-4-8': anthropic(5, 25),
  'claude-opus-4-7': anthropic(5, 25),
  'claude-opus-4-6': anthropic(5, 25),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-opus-4-1': anthropic(15, 75),
  'claude-opus-4': anthropic(15, 75),
  'claude-sonnet-5-5': anthropic(2, 10, ANTHROPIC_MODELS_SOURCE),
  'claude-sonnet-4-6': anthropic(3, 15),
  'claude-sonnet-4-5': anthropic(3, 15),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-3-7-sonnet': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
  'claude-3-haiku': { ...anthropic(0.25, 1.25), cacheWrite: 0.3, cachedInput: 0.03 },
};

export const OPENAI_PRICES: Record<string, Price> = {
  'gpt-5': openai(1.25, 0.125, 10),
  'gpt-5-codex': openai(1.25, 0.125, 10),
  'gpt-5-mini': openai(0.25, 0.025, 2),
  'gpt-5-nano': openai(0.05, 0.005, 0.4),
  'gpt-5.1': openai(1.25, 0.125, 10),
  'gpt-5.1-codex': openai(1.25, 0.125, 10),
  'gpt-5.1-codex-max': openai(1.25, 0.125, 10),
  'gpt-5.1-codex-mini': openai(0.25, 0.025, 2),
  'gpt-5.2': openai(1.75, 0.175, 14),
  'gpt-5.2-codex': openai(1.75, 0.175, 14),
};

export const GOOGLE_PRICES: Record<string, Price> = {
  'gemini-3.5-flash': google(1.5, 0.15, 9),
  'gemini-3.1-pro': google(2, 0.2, 12, { tokens: 200_000, input: 4, cachedInput: 0.4, output: 18 }),
  'gemini-3.1-flash-lite': google(0.25, 0.025, 1.5),
  'gemini-3-pro': google(2, 0.2, 12, { tokens: 200_000, input: 4, cachedInput: 0.4, output: 18 }),
  'gemini-3-flash': google(0.5, 0.05, 3),
  'gemini-2.5-pro': google(1.25, 0.125, 10, { tokens: 200_000, input: 2.5, cachedInput: 0.25, output: 15 }),
  'gemini-2.5-flash': google(0.3, 0.03, 2.5),
  'gemini-2.5-flash-lite': google(0.1, 0.01, 0.4),
  'gemini-2.0-flash': google(0.1, 0.025, 0.4),
};

/** The table of each model API the proxy serves (sandbox/proxy-models.ts MODEL_APIS). */
export const PRICES = { anthropic: ANTHROPIC_PRICES, openai: OPENAI_PRICES, google: GOOGLE_PRICES } as const;

/** The entry of `model` in `table`: the longest name it starts with at a boundary; undefined when none. */
function lookUp(model: string, table: Record<string, Price>): Price | undefined {
  // Google's API names a model `models/gemini-2.5-pro`; a gateway may add a provider (`anthropic/…`).
  const name = model.toLowerCase().replace(/^(models|publishers\/[^/]+\/models|[a-z-]+)\//, '');
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (!name.startsWith(key)) continue;
    const next = name.charAt(key.length);
    if (next !== '' && next !== '-' && next !== '@') continue;
    if (best === undefined || key.length > best.length) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/** The highest of each rate in `table`: what an unknown model of that API is charged. */
function highest(table: Record<string, Price>): Price {
  const all = Object.values(table);
  const max = (pick: (p: Price) => number): number => Math.max(...all.map(pick));
  return { input: max((p) => Math.max(p.input, p.above?.input ?? 0)), cachedInput: max((p) => Math.max(p.cachedInput, p.above?.cachedInput ?? 0)), output: max((p) => Math.max(p.output, p.above?.output ?? 0)), cacheWrite: max((p) => p.cacheWrite ?? p.input) };
}

/** A model's price, and whether the table knows it (an unknown one, or none named, gets the highest rates). */
export function priceFor(model: string | undefined, table: Record<string, Price>): { price: Price; known: boolean } {
  const known = model ? lookUp(model, table) : undefined;
  return known ? { price: known, known: true } : { price: highest(table), known: false };
}

/**
 * The price for a model name; a model not in the table (or none named: the CLI's default,
 * which changes between releases) is priced at the table's highest rates, so that a budget
 * errs towards stopping early rather than overspending.
 */
export function priceOf(model: string | undefined, table: Record<string, Price> = OPENAI_PRICES): Price {
  return priceFor(model, table).price;
}

/** Tokens of one response, split as they are billed. */
export interface Tokens {
  /** Input tokens neither read from nor written to a cache. */
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** Output tokens, reasoning ("thinking") tokens included. */
  output: number;
}

/** US$ for one response's tokens, rounded to a millionth of a dollar. */
export function costOf(price: Price, t: Tokens): number {
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  const rates = price.above && prompt > price.above.tokens ? price.above : price;
  const usd = (t.input * rates.input + t.cacheRead * rates.cachedInput + t.cacheWrite * (rates.cacheWrite ?? rates.input) + t.output * rates.output) / 1e6;
  return Math.round(usd * 1e6) / 1e6;
}

/** US$ for the tokens of one run, rounded to a millionth of a dollar (codex's counts: cached input is part of input). */
export function estimateCost(price: Price, t: { inputTokens: number; cachedInputTokens: number; outputTokens: number }): number {
  const cached = Math.min(t.cachedInputTokens, t.inputTokens);
  return costOf(price, { input: t.inputTokens - cached, cacheRead: cached, cacheWrite: 0, output: t.outputTokens });
}
