// Fetches the loader's second file (frame-entry.ts) as a classic script with the tag's nonce, so that the page's CSP
// treats it as it treats loader.js: a nonce-based policy (with or without 'strict-dynamic') and a host-based one that
// allows the relay both let it run. It is appended to the document's body, beside the launcher, and not in its shadow
// root (a script there has no currentScript, which is how it hands its export over), nor in the head, which a page may
// watch for changes of its own (its title); it is taken out again once it has run.
import type { createChatFrame } from './frame.ts';
import { FRAME_EXPORT } from './frame-export.ts';

type FrameScript = HTMLScriptElement & { [FRAME_EXPORT]?: typeof createChatFrame };

/** `path`: where the build put the second file on the relay (its name carries its content's hash). */
export const loadFrameScript = (doc: Document, path: string, relayOrigin: string, nonce: string) =>
  new Promise<typeof createChatFrame>((resolve, reject) => {
    const script = doc.createElement('script') as FrameScript;
    script.src = relayOrigin + path;
    script.setAttribute('nonce', nonce);
    script.onload = () => {
      script.remove();
      const create = script[FRAME_EXPORT];
      create ? resolve(create) : reject();
    };
    script.onerror = () => {
      script.remove();
      reject();
    };
    doc.body.append(script);
  });
