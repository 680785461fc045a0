// The load balancer of a test: each request goes to the next instance, no stickiness, as an operator's would.
import { Agent } from 'node:http';
import { startForwardingProxy, type ForwardingProxy } from './forwarding-proxy.ts';

export type RoundRobinProxy = ForwardingProxy;

export function startRoundRobinProxy(targets: () => readonly string[], port = 0): Promise<RoundRobinProxy> {
  let next = 0;
  return startForwardingProxy(
    {
      target() {
        const current = targets();
        return new URL(current[next++ % current.length]!);
      },
      answer(answer, outgoing) {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
      agent: new Agent({ keepAlive: true }),
    },
    port,
  );
}
