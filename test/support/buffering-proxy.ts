// A proxy that buffers whole answers, as a misconfigured one in front of the relay does (nginx with proxy_buffering
// on and no X-Accel-Buffering honoured, some corporate proxies): nothing of an answer, headers included, reaches the
// browser until the relay has finished it. A live stream through it delivers nothing at all. Counts what it forwards.
import { startForwardingProxy, type ForwardingProxy } from './forwarding-proxy.ts';

export interface BufferingProxy extends ForwardingProxy {
  /** `METHOD /path` of each request forwarded (no query string). */
  requests: string[];
}

export async function startBufferingProxy(target: string, port = 0): Promise<BufferingProxy> {
  const to = new URL(target);
  const requests: string[] = [];
  const proxy = await startForwardingProxy(
    {
      target(incoming) {
        requests.push(`${incoming.method} ${new URL(incoming.url ?? '/', 'http://proxy').pathname}`);
        return to;
      },
      answer(answer, outgoing) {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          if (!outgoing.destroyed) outgoing.writeHead(answer.statusCode ?? 502, headers).end(body);
        });
      },
    },
    port,
  );
  return { ...proxy, requests };
}
