import type { Context } from 'hono';

/**
 * Sets a header every answer to this request carries, before the route runs; the route may still set its own value
 * with c.header (the frame's Referrer-Policy, the logo's Cache-Control), and that value wins.
 *
 * On @hono/node-server the header goes straight onto Node's ServerResponse (`env.outgoing`), which merges it with the
 * route's headers as it writes them. Set through c.header, a single such header makes every answer build a WHATWG
 * Headers object, validate each name and value through it, and copy it out again for Node: a measurable share of the
 * relay's CPU on a message poll (bench/results.md, relay). Under app.request() (tests, in-process use) there is no ServerResponse, and c.header does it.
 */
export function presetHeader(c: Context, name: string, value: string): void {
  const outgoing = nodeResponse(c.env);
  if (outgoing === undefined) c.header(name, value);
  else outgoing.setHeader(name, value);
}

function nodeResponse(env: unknown): { setHeader(name: string, value: string): unknown } | undefined {
  if (typeof env !== 'object' || env === null || !('outgoing' in env)) return undefined;
  const outgoing = env.outgoing;
  if (
    typeof outgoing !== 'object' ||
    outgoing === null ||
    !('setHeader' in outgoing) ||
    typeof outgoing.setHeader !== 'function'
  )
    return undefined;
  return outgoing as { setHeader(name: string, value: string): unknown };
}
