// The frame page may be kept by the browser and revalidated: it carries the panel's script, so a visitor who opens
// the chat again on another page of the same site gets "not modified" instead of the whole page again. It is
// revalidated on every use (`no-cache`), so a practice's new configuration or domains, or a new build, reach the
// next open all the same. The validator covers the policy as well as the page: a page kept with one CSP is never
// confirmed under another.
import { createHash } from 'node:crypto';

/** A weak validator: the page's bytes differ by content coding, its meaning does not. */
export const pageValidator = (policy: string, html: string): string =>
  `W/"${createHash('sha256').update(policy).update('\n').update(html).digest('base64url')}"`;

/** Whether If-None-Match names `validator` (weak comparison, RFC 9110 section 13.1.2), or is `*`. */
export function isNotModified(ifNoneMatch: string | undefined, validator: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || opaque(trimmed) === opaque(validator);
  });
}
