// What a model's tokens cost, for CLIs that report tokens but no dollar figure (codex): the
// worker turns their token counts into an estimated cost so that a run's max-cost-usd budget
// still means something. Estimates only: the record marks them so.
//
// Source: OpenAI API pricing (openai.com/api/pricing), standard tier, US$ per 1M tokens, as
// published in December 2025. Cached input is part of input_tokens in codex's usage
// (`cached_input_tokens` counts the cached share) and is billed at the cached rate.
export interface Price {
  input: number;
  cachedInput: number;
  output: number;
}

export const OPENAI_PRICES: Record<string, Price> = {
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-5.1': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1-codex-max': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1-codex-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5.2': { input: 1.75, cachedInput: 0.175, output: 14 },
  'gpt-5.2-codex': { input: 1.75, cachedInput: 0.175, output: 14 },
};

/**
 * The price for a model name; a model not in the table (or none named: the CLI's default,
 * which changes between releases) is priced at the table's highest rates, so that a budget
 * errs towards stopping early rather than overspending.
 */
export function priceOf(model: string | undefined, table: Record<string, Price> = OPENAI_PRICES): Price {
  const known = model ? table[model.toLowerCase()] : undefined;
  if (known) return known;
  const all = Object.values(table);
  return { input: Math.max(...all.map((p) => p.input)), cachedInput: Math.max(...all.map((p) => p.cachedInput)), output: Math.max(...all.map((p) => p.output)) };
}

/** US$ for the tokens of one run, rounded to a millionth of a dollar. */
export function estimateCost(price: Price, t: { inputTokens: number; cachedInputTokens: number; outputTokens: number }): number {
  const cached = Math.min(t.cachedInputTokens, t.inputTokens);
  const usd = ((t.inputTokens - cached) * price.input + cached * price.cachedInput + t.outputTokens * price.output) / 1e6;
  return Math.round(usd * 1e6) / 1e6;
}
