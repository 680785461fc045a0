// What /readyz reports: whether a load balancer should send *this instance* traffic. That depends on the instance
// alone (it answers, is not stopping, and its event loop keeps up). Shared dependencies (Redis, the upstream token)
// are reported beside it but never make it unready: they fail for every instance at once, so a probe that followed
// them would take the whole service out of rotation, while the relay still serves what does not need them (the
// loader, configurations, reads while Redis is away) and answers the rest with coded errors and Retry-After.
import type { TokenState } from '../upstream/index.ts';

/**
 * One named dependency's state, shown to the operator as is ("ok", "unreachable"); never an error's message (it
 * could quote data). It should give up when `signal` aborts; its answer after the timeout is ignored either way.
 */
export type DependencyCheck = (signal: AbortSignal) => Promise<string>;

export interface ReadinessOptions {
  tokenState: () => TokenState;
  dependencies?: Record<string, DependencyCheck>;
  /** Per dependency check: a slower one is reported "timed out", so a slow Redis PING cannot make a probe slow. */
  timeoutMs?: number;
  /** The largest recent event-loop delay, in milliseconds (health/event-loop-delay.ts). */
  eventLoopDelayMs: () => number;
  /** Above this recent delay the instance is not ready. */
  maxEventLoopDelayMs: number;
}

export interface ReadinessReport {
  ready: boolean;
  instance: { event_loop: 'responsive' | 'slow'; event_loop_delay_ms: number };
  dependencies: Record<string, string>;
}

export const UPSTREAM_TOKEN = 'upstream_token';
export const DEFAULT_DEPENDENCY_TIMEOUT_MS = 1000;

/** "none yet": the first request that needs a token fetches one. */
export function tokenStatus(token: TokenState): string {
  switch (token.state) {
    case 'valid':
      return 'valid';
    case 'none':
      return 'none yet';
    case 'failing':
      return `failing since ${new Date(token.since).toISOString()}`;
  }
}

async function runCheck(check: DependencyCheck, timeoutMs: number): Promise<string> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('timed out');
    }, timeoutMs);
  });
  try {
    return await Promise.race([check(controller.signal).catch(() => 'failed'), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

export function createReadiness({
  tokenState,
  dependencies = {},
  timeoutMs = DEFAULT_DEPENDENCY_TIMEOUT_MS,
  eventLoopDelayMs,
  maxEventLoopDelayMs,
}: ReadinessOptions) {
  if (UPSTREAM_TOKEN in dependencies) throw new TypeError(`the dependency name "${UPSTREAM_TOKEN}" is the relay's own`);
  const named = Object.entries(dependencies);
  return async function report(): Promise<ReadinessReport> {
    // Read before the checks run, so that their wait is not counted against the loop.
    const delayMs = Math.round(eventLoopDelayMs());
    const responsive = delayMs <= maxEventLoopDelayMs;
    const checked = await Promise.all(
      named.map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const),
    );
    return {
      ready: responsive,
      instance: { event_loop: responsive ? 'responsive' : 'slow', event_loop_delay_ms: delayMs },
      dependencies: Object.fromEntries([[UPSTREAM_TOKEN, tokenStatus(tokenState())], ...checked]),
    };
  };
}
