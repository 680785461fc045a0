import { createSimulator, type Simulator, type SimulatorOptions } from '../../../src/simulator/app.ts';

export function tokenRequest(
  fields: Record<string, string>,
  contentType = 'application/x-www-form-urlencoded',
): RequestInit {
  return { method: 'POST', headers: { 'Content-Type': contentType }, body: new URLSearchParams(fields).toString() };
}

export async function accessToken(sim: Simulator): Promise<string> {
  const response = await sim.app.request(
    '/api/oauth/token/',
    tokenRequest({ username: sim.seed.username, password: sim.seed.password }),
  );
  if (response.status !== 200) throw new Error(`token request failed: ${response.status}`);
  const body: unknown = await response.json();
  if (typeof body !== 'object' || body === null || !('access_token' in body) || typeof body.access_token !== 'string') {
    throw new Error('no access_token');
  }
  return body.access_token;
}

/** A simulator plus a request helper that carries a valid Bearer token. */
export async function authedSimulator(options: SimulatorOptions = {}) {
  const sim = createSimulator({ randomSeed: 1, ...options });
  const token = await accessToken(sim);
  const request = (path: string, init: RequestInit = {}) =>
    sim.app.request(path, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } });
  const json = (path: string, method: string, body: unknown) =>
    request(path, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { sim, token, request, json };
}

/** Waits for a condition driven by timers in the simulator (bot and agent replies with tiny delays). */
// Generous: it returns as soon as the check holds, and a loaded shared machine can be slow.
export async function eventually(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
