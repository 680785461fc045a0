// The second file's entry (`vite build --mode loader-frame`): a classic script that loader.js adds to the page, with
// the page's nonce, on the patient's first sign of intent. It hands createChatFrame to loader.js on the script element
// that loaded it, which loader.js then takes out of the page: no global of the page's is touched, and nothing here
// runs until loader.js calls it.
import { createChatFrame } from './frame.ts';
import { FRAME_EXPORT } from './frame-export.ts';

(document.currentScript as HTMLScriptElement & { [FRAME_EXPORT]?: typeof createChatFrame })[FRAME_EXPORT] =
  createChatFrame;
