import { ApiError, withReason } from './api-error.ts';

/**
 * The relay never keeps a browser waiting past its own deadline: whatever upstream is doing (a token request, a
 * retry after a 401, a slow answer), the browser gets `upstream_timeout` with Retry-After once `ms` have passed.
 */
export function withDeadline<T>(ms: number, work: Promise<T>): Promise<T> {
  // One promise and one timer per request, settled by whichever comes first: no Promise.race, no async wrapper.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(withReason(new ApiError('upstream_timeout', 2), 'deadline')), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
