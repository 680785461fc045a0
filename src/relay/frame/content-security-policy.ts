// The frame's Content-Security-Policy. frame-ancestors lists exactly the configuration's domains, for both schemes and
// any port, so the browser itself refuses to show the panel anywhere else, and agrees with the loader's host check,
// which compares host names only (ARCHITECTURE.md). The rest keeps the frame's own code strict: the page's own
// inline script and stylesheet by their hashes and nothing else (no other inline block, no script or stylesheet
// file, no eval), nothing fetched but from the relay itself.

export interface FramePolicyOptions {
  /** Normalised domain entries (`host` or `*.host`); empty means no page may embed the frame. */
  domains: readonly string[];
  /** The demo's preview: only the relay's own pages may embed it (`frame-ancestors 'self'`). */
  preview?: boolean;
  /** Hash sources of the page's inline script and stylesheets (FramePage): the only script and style that run. */
  scriptSources: readonly string[];
  styleSources: readonly string[];
  /** Extra image sources: only the demo's preview, which may try out a logo address before it is configured. */
  extraImageSources?: readonly string[];
  /** Extra connect sources: Google Analytics' collect endpoint when the configuration has a GA4 tag id. */
  extraConnectSources?: readonly string[];
}

export function frameAncestors(domains: readonly string[]): string {
  if (domains.length === 0) return "'none'";
  return domains.flatMap((domain) => [`https://${domain}:*`, `http://${domain}:*`]).join(' ');
}

export function frameContentSecurityPolicy({
  domains,
  preview = false,
  scriptSources,
  styleSources,
  extraImageSources = [],
  extraConnectSources = [],
}: FramePolicyOptions): string {
  return [
    "default-src 'none'",
    // Nothing but the page's own blocks: an empty list must not leave the directive out (default-src would then
    // decide), so it is written as 'none'.
    ['script-src', ...orNone(scriptSources)].join(' '),
    ['style-src', ...orNone(styleSources)].join(' '),
    // The logo is served by the relay itself (/v1/logo), so images come from nowhere else.
    ['img-src', "'self'", ...extraImageSources].join(' '),
    ['connect-src', "'self'", ...extraConnectSources].join(' '),
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${preview ? "'self'" : frameAncestors(domains)}`,
  ].join('; ');
}

const orNone = (sources: readonly string[]) => (sources.length ? sources : ["'none'"]);
