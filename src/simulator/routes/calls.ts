import type { Hono } from 'hono';
import { CALL_STATUSES } from '../calls-seed.ts';
import type { SimulatorContext } from '../context.ts';
import { invalid, permissionDenied } from '../errors.ts';
import { practiceScope } from '../grants.ts';
import { pageResponse } from '../pagination.ts';
import { optionalChoices, optionalDate, ordering } from '../query.ts';

/** `GET /api/calls/`: paginated calls of the granted practices, with the filters of docs/upstream-contract.md. */
export function registerCallRoutes(app: Hono, ctx: SimulatorContext): void {
  app.get('/api/calls/', ctx.auth, (c) => {
    const params = new URL(c.req.url).searchParams;
    const scope = practiceScope(params, ctx.grantedPractices);
    if (!scope.ok) return permissionDenied(c);
    const status = optionalChoices(params, 'status', CALL_STATUSES);
    if (!status.ok) return invalid(c, status.detail);
    const from = optionalDate(params, 'started_at__gte');
    if (!from.ok) return invalid(c, from.detail);
    const to = optionalDate(params, 'started_at__lte');
    if (!to.ok) return invalid(c, to.detail);
    const direction = ordering(params, 'started_at', 'desc');

    const calls = ctx.calls.filter((call) => {
      const at = Date.parse(call.started_at);
      return (
        scope.practices.has(call.practice) &&
        (!status.value || status.value.has(call.status)) &&
        (from.value === undefined || at >= from.value) &&
        (to.value === undefined || at <= to.value)
      );
    });
    calls.sort((a, b) => {
      const byTime = Date.parse(a.started_at) - Date.parse(b.started_at) || a.id.localeCompare(b.id);
      return direction === 'asc' ? byTime : -byTime;
    });
    return pageResponse(c, calls);
  });
}
