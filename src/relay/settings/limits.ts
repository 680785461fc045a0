// The quotas and sizes that keep one visitor, or one script, from taking the relay or the service for itself, how
// a visitor is counted (by an IPv6 network, never by a spelling), and how many connections the relay opens to the service.
import { MESSAGE_MAX_LENGTH } from '../../shared/wire.ts';
import { DEFAULT_UPSTREAM_CONNECTIONS } from '../upstream/pool-transport.ts';
import { group, whole } from './values.ts';

export const limits = group('Limits', {
  requestsPerMinutePerIp: whole('REQUESTS_PER_MINUTE_PER_IP', 300, { min: 1, max: 1_000_000 }),
  conversationsPerHourPerIp: whole('CONVERSATIONS_PER_HOUR_PER_IP', 20, { min: 1, max: 1_000_000 }),
  messagesPerMinutePerConversation: whole('MESSAGES_PER_MINUTE_PER_CONVERSATION', 20, { min: 1, max: 1_000_000 }),
  /** Quotas count an IPv6 client by its network of this many bits (128: by its address); IPv4 by its address. */
  quotaIpv6Prefix: whole('QUOTA_IPV6_PREFIX', 64, { min: 32, max: 128 }),
  bodyLimitBytes: whole('BODY_LIMIT_BYTES', 16 * 1024, { min: 1024, max: 1024 * 1024 }),
  messageMaxLength: whole('MESSAGE_MAX_LENGTH', MESSAGE_MAX_LENGTH, { min: 1, max: MESSAGE_MAX_LENGTH }),
  /** The most connections the relay holds to the service at once; calls beyond wait for a free one. */
  upstreamConnections: whole('UPSTREAM_CONNECTIONS', DEFAULT_UPSTREAM_CONNECTIONS, { min: 1, max: 4096 }),
});
