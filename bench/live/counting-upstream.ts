// The upstream for the live bench: the simulator in this process, behind a counter of the upstream reads of each
// conversation, so that the bench can tell what watching a conversation costs the upstream.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSimulator, type Simulator } from '../../src/simulator/app.ts';

const READ_PATH = /^\/api\/conversations\/([^/]+)\/(messages\/)?$/;

export interface CountingUpstream {
  url: string;
  simulator: Simulator;
  /** GETs of each upstream conversation's messages or status so far, by conversation id. */
  readsOf: ReadonlyMap<string, number>;
  /** The conversation the simulator created last. */
  newestConversationId(): string;
  close(): void;
}

/** Starts the simulator on a loopback port, sending its signed events to `events`. */
export async function startCountingUpstream(events: { url: string; secret: string }): Promise<CountingUpstream> {
  const simulator = createSimulator({
    // The bot answers a visitor after a realistic pause; the team member's messages are the bench's own.
    botReplyDelayMs: 800,
    agentJoinDelayMs: 60_000,
    events,
  });
  const readsOf = new Map<string, number>();
  return new Promise((resolve) => {
    const server = serve(
      {
        fetch: (req: Request) => {
          const match = req.method === 'GET' ? READ_PATH.exec(new URL(req.url).pathname) : null;
          if (match) readsOf.set(match[1]!, (readsOf.get(match[1]!) ?? 0) + 1);
          return simulator.app.fetch(req);
        },
        port: 0,
        hostname: '127.0.0.1',
      },
      (info: AddressInfo) =>
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          simulator,
          readsOf,
          newestConversationId: () => [...simulator.store.conversations.keys()].at(-1)!,
          close: () => {
            server.close();
            simulator.close();
          },
        }),
    );
  });
}
