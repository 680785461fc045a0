// The one keeper of the conversation's handle in the panel: it opens the conversation (once, however many ask), picks
// up the one this browser tab had, forgets it, retires it on End chat and tells the relay of a language switch. The
// outbox and the follower ask it for the handle; whoever composes them hears when a conversation opens or is forgotten.
import type { HandleStorage } from '../session/handle-storage.ts';
import type { Transport } from '../transport.ts';

export interface ConversationHandleDependencies {
  transport: Pick<Transport, 'createConversation' | 'endConversation' | 'setLanguage'>;
  clientId: string;
  handles: HandleStorage;
  newKey: () => string;
  /** A conversation is open: one just created, or (`resumed`) the one an earlier page of this tab had. */
  onOpened: (resumed?: boolean) => void;
  /** The handle is gone: whatever followed its conversation stops. */
  onForgotten: () => void;
}

export type ConversationHandle = ReturnType<typeof createConversationHandle>;

export function createConversationHandle(deps: ConversationHandleDependencies) {
  const { transport, handles } = deps;
  let handle: string | null = null;
  let opening: Promise<string> | null = null;
  /** The Idempotency-Key of the conversation being opened: its retries reuse it, so the relay opens it only once. */
  let openingKey: string | null = null;

  function forget() {
    handle = null;
    handles.clear();
    deps.onForgotten();
  }

  return {
    /** The handle of the conversation open now; null while there is none. */
    held: () => handle,

    /** The handle, the conversation opened first if there is none yet. */
    async ensure(): Promise<string> {
      if (handle !== null) return handle;
      // One conversation however many messages are sent before it exists.
      if (opening) return opening;
      openingKey ??= deps.newKey();
      opening = transport
        .createConversation(deps.clientId, openingKey)
        .then((created) => {
          openingKey = null;
          handle = created.conversation;
          handles.save({ handle, expiresAt: Date.parse(created.expires_at) });
          deps.onOpened();
          return handle;
        })
        .finally(() => {
          opening = null;
        });
      return opening;
    },

    /** Picks up the conversation this browser tab had, if its stored handle is still good. */
    resume() {
      const stored = handles.load();
      if (stored === null) return;
      handle = stored.handle;
      deps.onOpened(true);
    },

    /** Drops the handle here (expired, refused, or a new chat): the next message opens a new conversation. */
    forget,

    /** End chat: the relay retires the handle, so a copy of it opens nothing, and it is forgotten here. */
    end() {
      // Best effort: if retiring fails, the handle still expires by itself and is gone here.
      if (handle !== null) transport.endConversation(handle).catch(() => undefined);
      forget();
    },

    /** The service answers in the patient's language from now on; a failure changes nothing the patient sees. */
    setLanguage(tag: string) {
      // A transport without the call (the demo's preview) has nobody to tell.
      if (handle !== null) transport.setLanguage?.(handle, tag).catch(() => undefined);
    },
  };
}
