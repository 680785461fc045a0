// The service's base URL as the relay joins paths to it: without the slashes it may end with.

/**
 * `url` without its trailing slashes. A loop, not `/\/+$/`: that pattern is tried from every slash of a long run
 * and reads the rest of the run each time.
 */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}
