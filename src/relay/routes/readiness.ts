// GET /readyz — 200 {"status":"ready","instance":{...},"dependencies":{...}} while this instance should get traffic;
// 503 "not_ready" (its event loop is too slow) or "draining" (stopping: a load balancer should stop sending)
// otherwise. Dependencies are reported, never a reason for 503 (health/readiness.ts says why). /healthz stays
// liveness: it says only that the process answers.
import { Hono } from 'hono';
import type { RelayEnv } from '../http/env.ts';
import type { Lifecycle } from '../health/lifecycle.ts';
import type { ReadinessReport } from '../health/readiness.ts';

export function readinessRoutes({
  lifecycle,
  report,
}: {
  lifecycle: Lifecycle;
  report: () => Promise<ReadinessReport>;
}) {
  return new Hono<RelayEnv>().get('/', async (c) => {
    c.header('Cache-Control', 'no-store');
    if (lifecycle.draining()) return c.json({ status: 'draining' }, 503);
    const { ready, instance, dependencies } = await report();
    return c.json({ status: ready ? 'ready' : 'not_ready', instance, dependencies }, ready ? 200 : 503);
  });
}
