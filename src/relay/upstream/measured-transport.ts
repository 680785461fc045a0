// Every upstream exchange timed and classified for metrics, in one wrapper around the transport (the token
// manager's requests and the authorized calls alike go through it).
import type { UpstreamOutcome } from '../metrics/metrics.ts';
import { outcomeOfError, outcomeOfStatus } from './failure-cause.ts';
import { operationOf } from './contract/index.ts';
import type { Transport } from './transport.ts';

export interface UpstreamMetrics {
  upstreamCall(operation: string, outcome: UpstreamOutcome, seconds: number): void;
}

export function measuredTransport(transport: Transport, metrics: UpstreamMetrics): Transport {
  return async (request) => {
    const startedAt = performance.now();
    const operation = operationOf(request.method, request.route);
    try {
      const answer = await transport(request);
      metrics.upstreamCall(operation, outcomeOfStatus(answer.status), (performance.now() - startedAt) / 1000);
      return answer;
    } catch (error) {
      metrics.upstreamCall(operation, outcomeOfError(error), (performance.now() - startedAt) / 1000);
      throw error;
    }
  };
}
