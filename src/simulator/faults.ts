import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';

export interface FaultSettings {
  /** Added delay before every matching /api response. */
  latencyMs?: number;
  /** 0..1 share of matching requests answered 500. */
  errorRate?: number;
  /** 0..1 share answered 429 with Retry-After. */
  rateLimitRate?: number;
  /** Retry-After of those 429s, default 1. */
  retryAfterSeconds?: number;
  /** 0..1 share whose connection is dropped without an answer, before the request is handled. */
  dropRate?: number;
  /**
   * 0..1 share that is handled (a message is stored) and whose connection is then dropped before the answer: the
   * caller cannot know whether its request took effect.
   */
  dropAfterHandlingRate?: number;
  /**
   * 0..1 share that is handled (a conversation or message is stored) and then answered 500, as a service that fails
   * after its work is done (writing its answer, a hook after the save) answers.
   */
  errorAfterHandlingRate?: number;
  /**
   * 0..1 share that is handled (a conversation or message is stored) and then answered 502, as a gateway in front of
   * the service answers when the service's own answer does not reach it.
   */
  badGatewayAfterHandlingRate?: number;
  /** Only paths matching this get faults. */
  match?: RegExp;
  /** Only requests with these methods get faults (all when absent): a create's POST, say, but not the list's GET. */
  methods?: readonly string[];
  /**
   * Not a fault but a behaviour of some real services (Django REST Framework's, for one): the conversation create
   * ignores the `client_reference` field and the list ignores the `client_reference` filter, as unknown ones. Whatever
   * `match` and `methods` say.
   */
  ignoreClientReference?: boolean;
}

export interface FaultControl {
  /** Replaces every setting at once (`set({})` is the same as `reset()`). */
  set(settings: FaultSettings): void;
  reset(): void;
  current(): FaultSettings;
}

const rate = z.number().min(0).max(1).optional();
const settingsSchema = z.object({
  latencyMs: z.number().int().min(0).optional(),
  errorRate: rate,
  rateLimitRate: rate,
  retryAfterSeconds: z.number().int().min(0).optional(),
  dropRate: rate,
  dropAfterHandlingRate: rate,
  errorAfterHandlingRate: rate,
  badGatewayAfterHandlingRate: rate,
  match: z.instanceof(RegExp).optional(),
  methods: z.array(z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE'])).optional(),
  ignoreClientReference: z.boolean().optional(),
});

export function createFaultControl(): FaultControl {
  let settings: FaultSettings = {};
  return {
    set(next) {
      // Parsed so that a typo'd knob (an errorRate of 50) fails the test that set it instead of doing nothing useful.
      settings = { ...settingsSchema.parse(next) };
    },
    reset() {
      settings = {};
    },
    current() {
      return { ...settings };
    },
  };
}

/**
 * Thrown to make the request fail as a dropped connection does. The app's error handler rethrows it, so under
 * `app.request` / `app.fetch` the returned promise rejects with a TypeError, as `fetch` does on a network error.
 */
export class ConnectionDropped extends TypeError {
  constructor() {
    super('fetch failed: connection dropped by the simulator (fault injection)');
    this.name = 'ConnectionDropped';
  }
}

/**
 * Injects latency, then at most one of 429 / 500 / dropped connection / dropped after handling / 500 after handling /
 * 502 after handling, chosen by one draw of the seeded PRNG against the cumulative shares (in that order).
 *
 * @example
 * app.use('/api/*', faultInjection({ control, random: createRandom(1) }))
 */
export function faultInjection(options: { control: FaultControl; random: () => number }): MiddlewareHandler {
  return async function faultInjection(c, next) {
    const settings = options.control.current();
    if (settings.match && c.req.path.search(settings.match) === -1) return next();
    if (settings.methods && !settings.methods.includes(c.req.method)) return next();

    if (settings.latencyMs) await new Promise((resolve) => setTimeout(resolve, settings.latencyMs));

    const draw = options.random();
    const rateLimit = settings.rateLimitRate ?? 0;
    const error = rateLimit + (settings.errorRate ?? 0);
    const drop = error + (settings.dropRate ?? 0);
    const dropAfter = drop + (settings.dropAfterHandlingRate ?? 0);
    const errorAfter = dropAfter + (settings.errorAfterHandlingRate ?? 0);
    const badGatewayAfter = errorAfter + (settings.badGatewayAfterHandlingRate ?? 0);
    if (draw < rateLimit) {
      c.header('Retry-After', String(settings.retryAfterSeconds ?? 1));
      return c.json({ detail: 'Request was throttled.', code: 'throttled' }, 429);
    }
    if (draw < error) return c.json({ detail: 'A server error occurred.', code: 'server_error' }, 500);
    if (draw < drop) {
      const socket = nodeSocket(c.env);
      if (!socket) throw new ConnectionDropped();
      socket.destroy();
      // Never delivered: the socket is gone. Returned only so the adapter has something to discard.
      return c.body(null, 500);
    }
    if (draw < dropAfter) {
      await next();
      const socket = nodeSocket(c.env);
      if (!socket) throw new ConnectionDropped();
      socket.destroy();
      return c.body(null, 500);
    }
    if (draw < badGatewayAfter) {
      await next();
      const failed =
        draw < errorAfter
          ? { status: 500, detail: 'A server error occurred.', code: 'server_error' }
          : { status: 502, detail: 'Bad gateway.', code: 'bad_gateway' };
      // What the handler answered never reaches the caller: the failure replaces it, headers and all.
      c.res = undefined;
      c.res = new Response(JSON.stringify({ detail: failed.detail, code: failed.code }), {
        status: failed.status,
        headers: { 'Content-Type': 'application/json' },
      });
      return;
    }
    return next();
  };
}

/** The socket of the request when served by @hono/node-server (`c.env.incoming`), else null. */
function nodeSocket(env: unknown): { destroy(): void } | null {
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return null;
  const incoming: unknown = env.incoming;
  if (typeof incoming !== 'object' || incoming === null || !('socket' in incoming)) return null;
  const socket: unknown = incoming.socket;
  if (typeof socket !== 'object' || socket === null || !('destroy' in socket)) return null;
  const destroy = socket.destroy;
  return typeof destroy === 'function' ? { destroy: () => destroy.call(socket) } : null;
}
