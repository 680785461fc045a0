// Imports the loader's second file (frame-entry.ts), an ES module on the relay, with `import()`. Nothing is written
// into the page: no script element whose `src` a page that enforces Trusted Types would refuse, no global. The
// import is allowed by the policy that allowed loader.js itself, whether it names the relay's origin or uses a nonce
// (an import carries its importer's nonce, with or without 'strict-dynamic'). The relay serves it to any origin
// (Access-Control-Allow-Origin: *), as a module's cross-origin fetch needs.
import type { createChatFrame } from './frame.ts';

/** The second file's path on the relay, written in by the loader build (vite.config.ts): its name carries its
 * content's hash. */
declare const LOADER_FRAME_PATH: string;

export const loadFrameModule = (relayOrigin: string): Promise<{ default: typeof createChatFrame }> =>
  import(/* @vite-ignore */ relayOrigin + LOADER_FRAME_PATH);
