// The only thing the panel keeps in the browser: the relay's opaque conversation handle and when it expires, so a
// reload in the same tab can pick the conversation up again. Message text is health information and is never stored.

export interface StoredHandle {
  handle: string;
  /** ms since the epoch */
  expiresAt: number;
}

export interface HandleStorage {
  load(): StoredHandle | null;
  save(value: StoredHandle): void;
  clear(): void;
}

// The relay mints base64url handles of at most 512 characters (src/relay/conversations/handles.ts).
const HANDLE = /^[A-Za-z0-9_-]{1,512}$/;

/**
 * Keeps the handle under `practice-chat:<clientId>` in the given Storage (sessionStorage in the app). Whatever is read
 * is parsed, and anything unexpected or expired is removed. Storage can be blocked or full (third-party frames,
 * private modes, quota): then this behaves as empty storage and never throws.
 */
export function createHandleStorage(
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null,
  clientId: string,
  now: () => number,
): HandleStorage {
  const key = `practice-chat:${clientId}`;

  const clear = (): void => {
    try {
      storage?.removeItem(key);
    } catch {
      // Blocked storage holds nothing to clear.
    }
  };

  const isUsable = (value: unknown): value is StoredHandle => {
    if (typeof value !== 'object' || value === null) return false;
    const { handle, expiresAt } = value as Record<string, unknown>;
    return (
      typeof handle === 'string' &&
      HANDLE.test(handle) &&
      typeof expiresAt === 'number' &&
      Number.isFinite(expiresAt) &&
      expiresAt > now()
    );
  };

  return {
    load() {
      let raw: string | null;
      try {
        raw = storage?.getItem(key) ?? null;
      } catch {
        return null;
      }
      if (raw === null) return null;
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = null;
      }
      if (!isUsable(parsed)) {
        clear();
        return null;
      }
      return { handle: parsed.handle, expiresAt: parsed.expiresAt };
    },

    save(value) {
      // A handle that could not be loaded back is not worth writing; drop any older one instead.
      if (!isUsable(value)) {
        clear();
        return;
      }
      try {
        // Named fields only: whatever else the caller's object carries stays out of storage.
        storage?.setItem(key, JSON.stringify({ handle: value.handle, expiresAt: value.expiresAt }));
      } catch {
        // Quota or blocked storage: the conversation simply won't survive a reload.
      }
    },

    clear,
  };
}
