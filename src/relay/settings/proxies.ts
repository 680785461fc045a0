// Which visitor a request comes from: the proxies whose X-Forwarded-For the quotas believe, and how an IPv6 address is
// counted (a visitor, never a spelling).
import { z } from 'zod';
import { parseTrustProxy, type TrustedProxies } from '../http/trusted-proxies.ts';
import { integer } from './values.ts';

export const proxiesSchema = z.object({
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, context) => {
      const trusted = parseTrustProxy(value);
      if (!('refused' in trusted)) return trusted;
      context.addIssue({ code: 'custom', message: trusted.refused });
      return z.NEVER;
    }),
  QUOTA_IPV6_PREFIX: integer(64, 32, 128),
});

export interface ProxySettings {
  /** Whose X-Forwarded-For quotas believe: a number of proxies, or their addresses (`{ hops: 0 }`: nobody's). */
  trustProxy: TrustedProxies;
  /** Quotas count an IPv6 client by its network of this many bits (128: by its address); IPv4 by its address. */
  quotaIpv6Prefix: number;
}
