// A stream client for the relay's server-sent events, holding a conversation's stream as the panel does.
import { Agent, type IncomingMessage, request } from 'node:http';
import { frameHeaders } from './relay-client.ts';
import type { Relay } from './relay-process.ts';

const streamAgent = new Agent({ keepAlive: false, maxSockets: Infinity });

export interface StreamClient {
  /** Called with each message event's data. */
  onMessage(listener: (message: { text: string; sequence: number }) => void): void;
  heartbeats: number;
  opened: Promise<void>;
  close(): void;
}

/** A stream as the panel holds it, on node:http (10,000 fetch streams would weigh on this process, not the relay's). */
export function openStream(relay: Relay, handle: string): StreamClient {
  const listeners: ((message: { text: string; sequence: number }) => void)[] = [];
  let buffer = '';
  let response: IncomingMessage | null = null;
  const client: StreamClient = {
    onMessage: (listener) => void listeners.push(listener),
    heartbeats: 0,
    opened: Promise.resolve(),
    close: () => {
      outgoing.destroy();
      response?.destroy();
    },
  };
  const url = new URL('/v1/conversation/events?after=0', relay.url);
  let resolveOpened!: () => void;
  let rejectOpened!: (error: Error) => void;
  client.opened = new Promise((resolve, reject) => {
    resolveOpened = resolve;
    rejectOpened = reject;
  });
  const outgoing = request(
    url,
    { agent: streamAgent, headers: { ...frameHeaders(relay), Authorization: `Bearer ${handle}` } },
    (answer) => {
      response = answer;
      if (answer.statusCode !== 200) return rejectOpened(new Error(`stream answered ${answer.statusCode}`));
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame === ': heartbeat') client.heartbeats += 1;
          if (frame.includes('event: status')) resolveOpened();
          if (frame.includes('event: message')) {
            const data = frame
              .split('\n')
              .find((line) => line.startsWith('data: '))!
              .slice(6);
            const message = JSON.parse(data) as { text: string; sequence: number };
            listeners.forEach((listener) => {
              listener(message);
            });
          }
        }
      });
      answer.on('error', () => {});
    },
  );
  outgoing.on('error', (error) => rejectOpened(error));
  outgoing.end();
  return client;
}
