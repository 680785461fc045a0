// The answer a route gives @hono/node-server when it has written its own answer on Node's ServerResponse (the live
// stream): the server then writes nothing more.
//
// The first @hono/node-server server a process starts replaces the global Response with a lighter class of its own,
// and the server sends an answer of that class by a shorter path that writes a head whatever the answer's headers say:
// over a stream's head already sent, that is an error, and the server's error handling cuts the connection. So the
// library's own RESPONSE_ALREADY_SENT, built with whichever class is global when its module is first evaluated, is
// right only if that happens before any server starts in the process (another server, the simulator's, a later
// import). This marker is built with Node's own class whatever the global is at the time.

/** The header by which @hono/node-server knows an answer was already written (its RESPONSE_ALREADY_SENT carries it). */
export const ALREADY_SENT_HEADER = 'x-hono-already-sent';

/** Node's own Response: the lighter class is made a subclass of it (so that `instanceof Response` holds), its root. */
const NativeResponse = rootClass(Response);

function rootClass(of: typeof Response): typeof Response {
  let found = of;
  for (;;) {
    const parent: unknown = Object.getPrototypeOf(found);
    if (typeof parent !== 'function' || parent === Function.prototype) return found;
    found = parent as typeof Response;
  }
}

/**
 * A new marker per answer rather than one shared: middleware that runs after the route sets headers on the answer it
 * returns, which on a shared object would carry one request's headers into the next.
 */
export function alreadySent(): Response {
  return new NativeResponse(null, { headers: { [ALREADY_SENT_HEADER]: 'true' } });
}
