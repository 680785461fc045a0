// What /readyz reports: whether a load balancer should send this instance traffic. The upstream token's state comes
// from the token manager's memory (a probe every few seconds must not become a token request every few seconds);
// further checks (Redis, when shared stores are configured) plug in by name and each gets a short timeout.
import type { TokenState } from '../upstream/index.ts';

export interface ReadinessOutcome {
  ready: boolean;
  /** Shown to the operator as is, e.g. "ok" or "unreachable". Never an error's message (it could quote data). */
  status: string;
}

/** One named check. It should give up when `signal` aborts; its answer after the timeout is ignored either way. */
export type ReadinessCheck = (signal: AbortSignal) => Promise<ReadinessOutcome>;

export interface ReadinessOptions {
  tokenState: () => TokenState;
  checks?: Record<string, ReadinessCheck>;
  /** Per check; a check slower than this counts as not ready ("timed out"). */
  timeoutMs?: number;
}

export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, string>;
}

export const UPSTREAM_TOKEN_CHECK = 'upstream_token';
export const DEFAULT_READINESS_TIMEOUT_MS = 1000;

/** "none yet" is ready: the first request that needs a token fetches one. Failing with no valid token left is not. */
export function tokenOutcome(token: TokenState): ReadinessOutcome {
  switch (token.state) {
    case 'valid':
      return { ready: true, status: 'valid' };
    case 'none':
      return { ready: true, status: 'none yet' };
    case 'failing':
      return { ready: false, status: `failing since ${new Date(token.since).toISOString()}` };
  }
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<ReadinessOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<ReadinessOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ ready: false, status: 'timed out' });
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      check(controller.signal).then(
        (outcome) => outcome,
        () => ({ ready: false, status: 'failed' }),
      ),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export function createReadiness({ tokenState, checks = {}, timeoutMs = DEFAULT_READINESS_TIMEOUT_MS }: ReadinessOptions) {
  if (UPSTREAM_TOKEN_CHECK in checks) throw new TypeError(`the readiness check name "${UPSTREAM_TOKEN_CHECK}" is the relay's own`);
  const named = Object.entries(checks);
  return async function report(): Promise<ReadinessReport> {
    const outcomes: [string, ReadinessOutcome][] = [
      [UPSTREAM_TOKEN_CHECK, tokenOutcome(tokenState())],
      ...(await Promise.all(named.map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as [string, ReadinessOutcome]))),
    ];
    return {
      ready: outcomes.every(([, outcome]) => outcome.ready),
      checks: Object.fromEntries(outcomes.map(([name, outcome]) => [name, outcome.status])),
    };
  };
}
