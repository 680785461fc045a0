import { ApiError, withReason } from './api-error.ts';

/**
 * The relay never keeps a browser waiting past its own deadline: whatever upstream is doing (a token request, a
 * retry after a 401, a slow answer), the browser gets `upstream_timeout` with Retry-After once `ms` have passed.
 */
export async function withDeadline<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(withReason(new ApiError('upstream_timeout', 2), 'deadline')), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
