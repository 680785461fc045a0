// Whom the relay believes and what it exposes: the proxies whose X-Forwarded-For quotas believe, plain http to the
// service, the pages meant for whoever runs it, and the metrics listener (never the public port).
import { z } from 'zod';
import { parseTrustProxy } from '../http/trusted-proxies.ts';
import { flag, group, optionalFlag, optionalWhole, parsed, text } from './values.ts';

export const security = group(
  'Security',
  {
    /** Whose X-Forwarded-For quotas believe: a number of proxies, or their addresses (`{ hops: 0 }`: nobody's). */
    trustProxy: parsed(
      'TRUST_PROXY',
      z
        .string()
        .optional()
        .transform((value, context) => {
          const trusted = parseTrustProxy(value);
          if (!('refused' in trusted)) return trusted;
          context.addIssue({ code: 'custom', message: trusted.refused });
          return z.NEVER;
        }),
    ),
    allowPlainHttpUpstream: flag('ALLOW_PLAIN_HTTP_UPSTREAM', false),
    /** The index page, /try and the demo page: on in development, off in production unless DEMO_PAGES (settings.ts). */
    demoPages: optionalFlag('DEMO_PAGES'),
    metricsPort: optionalWhole('METRICS_PORT', { min: 1, max: 65535 }),
    metricsHost: text('METRICS_HOST', z.string().trim().min(1), '127.0.0.1'),
  },
  ({ metricsPort, metricsHost, ...rest }) => ({
    ...rest,
    /** Where the Prometheus metrics listener runs; null: no metrics at all. Never the public port. */
    metrics: metricsPort === null ? null : { host: metricsHost, port: metricsPort },
  }),
);
