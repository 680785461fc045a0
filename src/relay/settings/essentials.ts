// What a deployer must set (production refuses to start without the first six): the mode, the secret handles are
// sealed with, the relay's origin as browsers see it, the service and its account, and where the relay listens.
import { z } from 'zod';
import { withoutTrailingSlashes } from '../upstream/trailing-slashes.ts';
import { group, optionalText, text, whole } from './values.ts';

const secret = z.string().min(32, 'must be at least 32 characters');

export const essentials = group(
  'Essentials',
  {
    nodeEnv: optionalText('NODE_ENV', z.string()),
    handleSecret: optionalText('HANDLE_SECRET', secret),
    publicOrigin: optionalText(
      'PUBLIC_ORIGIN',
      z.url({ protocol: /^https?$/ }).transform((address) => new URL(address).origin),
    ),
    upstreamUrl: optionalText('UPSTREAM_URL', z.url({ protocol: /^https?$/ })),
    upstreamUsername: optionalText('UPSTREAM_USERNAME', z.string().min(1)),
    upstreamPassword: optionalText('UPSTREAM_PASSWORD', z.string().min(1)),
    port: whole('PORT', 8787, { min: 0, max: 65535 }),
    host: text('HOST', z.string().trim().min(1), '127.0.0.1'),
  },
  ({ nodeEnv, upstreamUrl, upstreamUsername, upstreamPassword, ...rest }, refuse) => {
    const parts = [upstreamUrl, upstreamUsername, upstreamPassword];
    if (parts.some(Boolean) && !parts.every(Boolean))
      refuse('UPSTREAM_URL, UPSTREAM_USERNAME and UPSTREAM_PASSWORD go together: set all three or none.');
    return {
      ...rest,
      nodeEnv,
      /**
       * Only NODE_ENV=development or test. Development allows http logos on loopback hosts (the embedded simulator
       * serves its logo over http), a generated HANDLE_SECRET, and no PUBLIC_ORIGIN (then only loopback Host names).
       */
      development: isDevelopmentMode(nodeEnv),
      /** null: no upstream configured, so `npm start` embeds the simulator. */
      upstream:
        upstreamUrl === undefined
          ? null
          : { url: withoutTrailingSlashes(upstreamUrl), username: upstreamUsername!, password: upstreamPassword! },
    };
  },
);

/** Exactly `development` or `test` (Vitest sets `test`); every other value, and none, means production. */
export function isDevelopmentMode(nodeEnv: string | undefined): boolean {
  return nodeEnv === 'development' || nodeEnv === 'test';
}
