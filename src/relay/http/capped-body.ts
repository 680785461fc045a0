// A request body read only up to a cap, before any route has looked at it, and left in place for the route to read
// again. Hono's bodyLimit does the same for the whole API, but it runs after the events path's guard, which has to
// read an event to know whether it is signed.
import type { Context } from 'hono';

/**
 * The body as text when it is at most `maxBytes` long; null when it is longer, declared (Content-Length) or sent. A
 * body declared too long is not read at all (the route refuses it by its header too). Otherwise the stream is read
 * until it ends or passes the cap, no further (as Hono's bodyLimit leaves it), and the request then holds what was
 * read, so the route reads the same bytes, and its own size check refuses a body past the cap.
 */
export async function readCappedBody(c: Context, maxBytes: number): Promise<string | null> {
  if (Number(c.req.header('Content-Length') ?? 0) > maxBytes) return null;
  const body = c.req.raw.body;
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > maxBytes) break;
  }
  const bytes = Buffer.concat(chunks, size).subarray(0, maxBytes + 1);
  c.req.raw = new Request(c.req.raw, { body: bytes });
  return bytes.byteLength > maxBytes ? null : bytes.toString('utf8');
}
