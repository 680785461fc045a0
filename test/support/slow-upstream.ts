// The simulator behind a small forwarding proxy on a real port that holds message sends for `delayMs` before passing
// them on, and says when one has arrived: a send that is provably in flight, for the graceful-stop tests.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { startSimulatorServer } from '../../src/simulator/server.ts';
import { bearer, MESSAGES } from './conversation-calls.ts';

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function startSlowUpstream({ delayMs }: { delayMs: number }) {
  const simulator = await startSimulatorServer({ port: 0, botReplyDelayMs: 0, agentJoinDelayMs: 0 });
  const arrivals: (() => void)[] = [];
  let sendsArrived = 0;
  // Sends that arrived and that the simulator has not answered yet (held, or being stored); drains wait for none left.
  let sendsInFlight = 0;
  const drains: (() => void)[] = [];
  const proxy = createServer((request, response) => {
    // After close() a held send forwards to a closed simulator: that ends its connection, not the test run.
    forward(request, response).catch(() => response.destroy());
  });
  async function forward(request: IncomingMessage, response: ServerResponse) {
    const body = await bodyOf(request);
    const isSend = request.method === 'POST' && /\/messages\/?$/.test(request.url ?? '');
    if (!isSend) return pass(request, response, body);
    sendsArrived += 1;
    sendsInFlight += 1;
    arrivals.splice(0).forEach((arrived) => {
      arrived();
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await pass(request, response, body);
    } finally {
      sendsInFlight -= 1;
      if (sendsInFlight === 0)
        drains.splice(0).forEach((drained) => {
          drained();
        });
    }
  }
  async function pass(request: IncomingMessage, response: ServerResponse, body: Buffer) {
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(
        (entry): entry is [string, string] =>
          typeof entry[1] === 'string' && !['host', 'connection', 'content-length'].includes(entry[0]),
      ),
    );
    const answer = await fetch(`${simulator.url}${request.url}`, {
      method: request.method ?? 'GET',
      headers,
      ...(body.length > 0 ? { body: new Uint8Array(body) } : {}),
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, {
      'Content-Type': answer.headers.get('content-type') ?? 'application/octet-stream',
    });
    response.end(bytes);
  }
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seed: simulator.simulator.seed,
    simulator: simulator.simulator,
    sendsArrived: () => sendsArrived,
    /**
     * Resolves once no send is held or being stored: every send that has reached the upstream so far is stored (or
     * refused) by the simulator.
     */
    sendsSettled: () =>
      sendsInFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => drains.push(() => resolve())),
    /** Resolves when the next message send reaches the upstream. */
    nextSendArrives: () => new Promise<void>((resolve) => arrivals.push(resolve)),
    close: async () => {
      await new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        proxy.closeAllConnections();
      });
      await simulator.close();
    },
  };
}

/**
 * Starts a conversation on the relay, then a send that the slow upstream holds; resolves once the send has reached the
 * upstream, with the browser's pending answer.
 */
export async function sendHeldByUpstream(
  relayUrl: string,
  upstream: Awaited<ReturnType<typeof startSlowUpstream>>,
  key: string,
  text: string,
) {
  const headers = { 'Content-Type': 'application/json', Origin: relayUrl };
  const created = await fetch(`${relayUrl}/v1/conversations`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ client_id: 'demo-client' }),
  });
  if (created.status !== 201) throw new Error(`could not start a conversation: ${created.status}`);
  const { conversation } = (await created.json()) as { conversation: string };
  const arrived = upstream.nextSendArrives();
  const send = fetch(`${relayUrl}${MESSAGES}`, {
    method: 'POST',
    headers: { ...headers, 'Idempotency-Key': key, ...bearer(conversation) },
    body: JSON.stringify({ text }),
  });
  // A failed send must fail the test, not hang it until the arrival that never comes.
  await Promise.race([
    arrived,
    send.then((response) => Promise.reject(new Error(`the send answered ${response.status} too early`))),
  ]);
  return { send };
}

/** A fresh TCP connection to a server's port: resolves "connected" or the error code (ECONNREFUSED once it stopped). */
export function tryConnect(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
  });
}
