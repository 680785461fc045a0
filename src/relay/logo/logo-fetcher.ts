// The relay fetches a configuration's signed logo URL itself, so visitors' browsers never contact the storage host.
// This fetch is deliberately separate from the upstream client: it carries no Authorization header (the Bearer token
// must never reach another origin), no cookies, follows no redirects, and stops at a size bound.
import { createHash } from 'node:crypto';
import type { FetchLike } from '../upstream/index.ts';
import { sniffImageType, type LogoType } from './sniff-image.ts';

export interface Logo {
  bytes: Uint8Array<ArrayBuffer>;
  type: LogoType;
  /** A content hash (base64url, 22 characters): the `v` of the logo's relay URL. */
  hash: string;
}

export type LogoFetcher = (signedUrl: string) => Promise<Logo | null>;

export interface LogoFetcherOptions {
  fetch?: FetchLike;
  /** Larger logos are refused: a launcher icon needs a few kilobytes, not megabytes. */
  maxBytes?: number;
  timeoutMs?: number;
}

export const LOGO_MAX_BYTES = 256 * 1024;

/** Fetches and checks a logo; null when it cannot be used (refused, too big, not an allowed image, unreachable). */
export function createLogoFetcher({
  fetch = (input, init) => globalThis.fetch(input, init),
  maxBytes = LOGO_MAX_BYTES,
  timeoutMs = 3000,
}: LogoFetcherOptions = {}): LogoFetcher {
  return async (signedUrl) => {
    try {
      const response = await fetch(signedUrl, {
        method: 'GET',
        redirect: 'error',
        credentials: 'omit',
        headers: { Accept: 'image/*' },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (response.status !== 200 || response.body === null) {
        await response.body?.cancel();
        return null;
      }
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > maxBytes) {
        await response.body.cancel();
        return null;
      }
      const bytes = await readAtMost(response.body, maxBytes);
      if (bytes === null) return null;
      const type = sniffImageType(bytes);
      if (type === null) return null;
      return { bytes, type, hash: createHash('sha256').update(bytes).digest('base64url').slice(0, 22) };
    } catch {
      // Unreachable, timed out, redirected: the widget shows its chat icon instead.
      return null;
    }
  };
}

/** The whole body, or null as soon as it grows past `maxBytes` (a missing or false Content-Length is not trusted). */
async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number): Promise<Uint8Array<ArrayBuffer> | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
