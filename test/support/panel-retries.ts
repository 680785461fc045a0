// A call retried as the panel retries it (src/frame/model: the same request each time, retryDelayMs between attempts,
// Retry-After honoured, MAX_AUTOMATIC_ATTEMPTS in all), for tests of outages that visitors ride out.
import { MAX_AUTOMATIC_ATTEMPTS, retryDelayMs } from '../../src/frame/model/backoff.ts';

/** What the panel retries: a connection that failed, a quota, and the relay's 503 and 504 answers. */
const RETRIED = new Set([429, 503, 504]);

export interface Landed {
  response: Response;
  attempts: number;
  /** The statuses of the attempts that failed, in order (0: no answer). */
  refusals: number[];
}

/** Resolves with the first answer the panel would keep; throws when the panel would give up and offer "Try again". */
export async function withPanelRetries(call: () => Promise<Response>, expected: number): Promise<Landed> {
  const refusals: number[] = [];
  for (let attempt = 1; attempt <= MAX_AUTOMATIC_ATTEMPTS; attempt++) {
    const response = await call().catch(() => null);
    if (response?.status === expected) return { response, attempts: attempt, refusals };
    if (response !== null && !RETRIED.has(response.status))
      throw new Error(`answered ${response.status}, which the panel does not retry: ${await response.text()}`);
    refusals.push(response?.status ?? 0);
    await response?.body?.cancel();
    if (attempt === MAX_AUTOMATIC_ATTEMPTS) break;
    const retryAfterSeconds = Number(response?.headers.get('Retry-After') ?? Number.NaN);
    const retryAfterMs = Number.isFinite(retryAfterSeconds) ? retryAfterSeconds * 1000 : undefined;
    await new Promise((resolve) => setTimeout(resolve, retryDelayMs(attempt, retryAfterMs, Math.random)));
  }
  throw new Error(`not answered ${expected} after ${MAX_AUTOMATIC_ATTEMPTS} attempts (${refusals.join(', ')})`);
}
