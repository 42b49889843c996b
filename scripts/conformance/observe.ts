/** Normalizing GitHub's answers: a request's outcome as its status and the message a reader sees. */

export type Answer<T> = { ok: true; status: number; data: T } | { ok: false; status: number; message: string };

interface ErrorShape {
  status?: number;
  message?: string;
  response?: { data?: { message?: string; errors?: Array<{ message?: string; code?: string } | string> } };
}

/** Awaits a request; a refusal becomes its status and message instead of a throw. Network errors still throw. */
export async function attempt<T>(request: Promise<{ status: number; data: T }>): Promise<Answer<T>> {
  try {
    const { status, data } = await request;
    return { ok: true, status, data };
  } catch (error) {
    const e = error as ErrorShape;
    if (typeof e.status !== 'number' || e.status < 400) throw error;
    return { ok: false, status: e.status, message: messageOf(e) };
  }
}

/** GitHub's `message`, with the first error's own message when it has one ("Validation Failed: …"). */
function messageOf(e: ErrorShape): string {
  const data = e.response?.data;
  const base = data?.message ?? e.message ?? '';
  const first = data?.errors?.[0];
  const detail = typeof first === 'string' ? first : (first?.message ?? first?.code);
  return detail === undefined ? base : `${base}: ${detail}`;
}

/** `201` or `422 Reference already exists`: how an answer appears in the table. */
export function show(answer: Answer<unknown>): string {
  return answer.ok ? String(answer.status) : `${answer.status} ${answer.message}`;
}

/** Throws unless the request succeeded: for a scenario's setup steps, whose failure is the scenario's failure. */
export async function must<T>(request: Promise<{ status: number; data: T }>, what: string): Promise<T> {
  const answer = await attempt(request);
  if (!answer.ok) throw new Error(`${what}: ${show(answer)}`);
  return answer.data;
}
