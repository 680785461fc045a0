// The second file's entry (`vite build --mode loader-frame`): an ES module that loader.js imports with `import()` on
// the patient's first sign of intent. An import is no Trusted Types sink (a script element's `src` is), it carries the
// nonce of the script that made it (loader.js's) under a nonce-based CSP, and it adds no element and no global to
// the page. Nothing here runs until loader.js calls createChatFrame.
export { createChatFrame as default } from './frame.ts';
