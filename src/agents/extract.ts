// Getting a worker's structured result out of what an agent CLI left behind: the file
// named by BATON_OUTPUT when the agent wrote one, else the last JSON block of its final
// message (a ```json fence, or the last balanced {...} / [...] in the text).
import type { Json } from '../manifest/expressions.ts';

export type Extracted = { ok: true; value: Json; source: 'file' | 'message' | 'structured' } | { ok: false; error: string };

export function extractResult(outputFile: string | undefined, finalMessage: string): Extracted {
  if (outputFile !== undefined && outputFile.trim() !== '') {
    try {
      return { ok: true, value: JSON.parse(outputFile) as Json, source: 'file' };
    } catch (err) {
      return { ok: false, error: `the BATON_OUTPUT file is not valid JSON: ${(err as Error).message}` };
    }
  }
  const fenced = [...finalMessage.matchAll(/```(?:json|JSON)?[ \t]*\n([\s\S]*?)\n[ \t]*```/g)].map((m) => m[1]!);
  for (const block of fenced.reverse()) {
    try {
      return { ok: true, value: JSON.parse(block) as Json, source: 'message' };
    } catch {
      // not JSON: an earlier block may be
    }
  }
  const bare = lastBalancedJson(finalMessage);
  if (bare !== undefined) return { ok: true, value: bare, source: 'message' };
  return { ok: false, error: 'no JSON result: write it to the file named by BATON_OUTPUT, or end the final message with a ```json block' };
}

/** Scans from the end for a `}` or `]` that closes a parseable JSON value. */
function lastBalancedJson(text: string): Json | undefined {
  for (let end = text.length - 1; end >= 0; end--) {
    const close = text[end];
    if (close !== '}' && close !== ']') continue;
    const open = close === '}' ? '{' : '[';
    let depth = 0;
    let inString = false;
    for (let i = end; i >= 0; i--) {
      const c = text[i];
      if (c === '"' && text[i - 1] !== '\\') inString = !inString;
      if (inString) continue;
      if (c === close) depth++;
      else if (c === open && --depth === 0) {
        try {
          return JSON.parse(text.slice(i, end + 1)) as Json;
        } catch {
          break;
        }
      }
    }
  }
  return undefined;
}
