// A stream's connection taken from Node's HTTP server once the answer's head is written, as Node itself does when a
// request upgrades (lib/_http_server.js, onParserExecuteCommon): the server's listeners come off the socket, its
// parser goes back to the pool, and the request and response it kept for the connection (with their headers, their
// streams' state, their listeners) are left for the garbage collector. What stays is the socket and the stream's own
// record: an idle stream then costs about what an upgraded WebSocket does, and an instance holds tens of thousands.
//
// The server's own bookkeeping no longer reaches a taken connection: `closeAllConnections()` and the timeouts' checks
// go through the parsers. Whoever takes one closes it: the stream ends it (its lifetime, a stop's reconnect hint), and
// the server's stop destroys every socket it accepted (serve.ts).
//
// Node names none of this publicly. Each piece is checked before anything is changed: on a Node whose server differs,
// nothing is taken and the stream goes on through the response as before (bench:live's memory per stream would show it).
import type { ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

/** Node's HTTP parser of the connection: opaque here, handed back to Node's own pool. */
type Parser = object;
interface HttpCommon {
  freeParser(parser: Parser, request: unknown, socket: Socket): void;
}
/** The fields of Node's HTTP server this reads and clears. */
interface ServedSocket extends Socket {
  parser?: Parser | null;
  _httpMessage?: unknown;
}

const httpCommon = loadHttpCommon();

function loadHttpCommon(): HttpCommon | null {
  try {
    const common = createRequire(import.meta.url)('_http_common') as Partial<HttpCommon>;
    return typeof common.freeParser === 'function' ? (common as HttpCommon) : null;
  } catch {
    return null;
  }
}

/** Node's server listeners on a connection it serves, by event, by function name (bound ones are named so). */
const SERVER_LISTENERS: Readonly<Record<string, readonly string[]>> = {
  data: ['bound socketOnData'],
  end: ['bound socketOnEnd'],
  close: ['bound socketOnClose', 'onServerResponseClose'],
  drain: ['bound socketOnDrain'],
  error: ['socketOnError'],
  timeout: ['socketOnTimeout'],
  resume: ['onSocketResume'],
  pause: ['onSocketPause'],
};
/** Methods the server sets on each socket it serves, over the socket's own (to notice a reader of its own). */
const SERVER_METHODS = ['on', 'addListener', 'prependListener', 'setEncoding'] as const;

/**
 * An event stream's client sends nothing after its request (a browser never pipelines, and a proxy sends no second
 * request on a connection whose answer has not ended): one that does is cut, rather than read for as long as it sends.
 */
function clientSpoke(this: Socket) {
  this.destroy();
}
/** The client closed its side: so does the relay (the server's `allowHalfOpen` would otherwise keep ours open). */
function clientEnded(this: Socket) {
  this.destroy();
}
/** An error closes the socket (Node destroys it, and 'close' follows); a listener keeps it from being thrown. */
function ignoreError() {}

/**
 * Takes `response`'s connection from the server; call it once the head is written, outside the parser's own callbacks
 * (a later turn of the event loop). Returns the socket, or null when Node's server is not as expected (nothing was
 * changed) or the connection is already gone.
 */
export function takeSocket(response: ServerResponse): Socket | null {
  const socket = response.socket as ServedSocket | null;
  if (httpCommon === null || socket === null || socket.destroyed || !response.headersSent) return null;
  const parser = socket.parser;
  if (parser === null || parser === undefined || socket._httpMessage !== response) return null;
  const found = Object.entries(SERVER_LISTENERS).flatMap(([event, names]) =>
    names.map((name) => socket.listeners(event).find((listener) => listener.name === name)),
  );
  if (found.some((listener) => listener === undefined)) return null;
  if (!SERVER_METHODS.every((method) => Object.hasOwn(socket, method))) return null;

  // Ours first, so that the socket never lacks a listener for its errors or its client's end.
  socket.on('error', ignoreError);
  let at = 0;
  for (const [event, names] of Object.entries(SERVER_LISTENERS))
    for (const _ of names) socket.removeListener(event, found[at++] as (...args: unknown[]) => void);
  // The socket's own methods again, assigned as Node does after an upgrade: deleting them would turn the socket into a
  // dictionary of properties, which weighs more than the wrappers it drops.
  const own = Object.getPrototypeOf(socket) as Record<(typeof SERVER_METHODS)[number], unknown>;
  for (const method of SERVER_METHODS) (socket as unknown as Record<string, unknown>)[method] = own[method];
  httpCommon.freeParser(parser, response.req, socket);
  socket._httpMessage = null;
  socket.on('end', clientEnded);
  socket.on('data', clientSpoke);
  return socket;
}
