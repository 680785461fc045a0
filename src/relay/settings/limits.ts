// The quotas and sizes that keep one visitor, or one script, from taking the relay or the service for itself.
import { z } from 'zod';
import { MESSAGE_MAX_LENGTH } from '../../shared/wire.ts';
import { integer } from './values.ts';

export const limitsSchema = z.object({
  REQUESTS_PER_MINUTE_PER_IP: integer(300, 1, 1_000_000),
  CONVERSATIONS_PER_HOUR_PER_IP: integer(20, 1, 1_000_000),
  MESSAGES_PER_MINUTE_PER_CONVERSATION: integer(20, 1, 1_000_000),
  BODY_LIMIT_BYTES: integer(16 * 1024, 1024, 1024 * 1024),
  MESSAGE_MAX_LENGTH: integer(MESSAGE_MAX_LENGTH, 1, MESSAGE_MAX_LENGTH),
  UPSTREAM_EVENTS_PER_MINUTE_PER_IP: integer(6000, 1, 1_000_000),
});

export interface LimitSettings {
  requestsPerMinutePerIp: number;
  conversationsPerHourPerIp: number;
  messagesPerMinutePerConversation: number;
  bodyLimitBytes: number;
  messageMaxLength: number;
  /** Calls to POST /v1/upstream-events per source address per minute (the service's own events included). */
  upstreamEventsPerMinutePerIp: number;
}
