// Who the relay is: the mode it runs in, its origin as browsers see it, the secret its conversation handles are sealed
// with, and whether it serves the pages meant for whoever runs it.
import { z } from 'zod';
import { integer, optionalFlag } from './values.ts';

export const identitySchema = z.object({
  NODE_ENV: z.string().optional(),
  HANDLE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PUBLIC_ORIGIN: z.url({ protocol: /^https?$/ }).optional(),
  HANDLE_TTL_HOURS: integer(12, 1, 24 * 30),
  DEMO_PAGES: optionalFlag,
});

export interface IdentitySettings {
  /** The key material for sealing conversation handles. */
  handleSecret: Uint8Array;
  handleSecretGenerated: boolean;
  handleTtlMs: number;
  /** The relay's own origin as browsers see it; null means "the origin of each request". */
  publicOrigin: string | null;
  /**
   * Only NODE_ENV=development or test. Development allows http logos on loopback hosts (the embedded simulator serves
   * its logo over http), a generated HANDLE_SECRET, and no PUBLIC_ORIGIN (then only loopback Host names are served).
   */
  development: boolean;
  /** The index page, /try and the demo page (and its assets): on in development, off in production unless DEMO_PAGES. */
  demoPages: boolean;
}
