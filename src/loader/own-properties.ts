// The property names that only the loader's own objects carry (boot's environment and settings, the API's event hub,
// the launcher and the frame), which the loader build shortens (vite.config.ts). Minified code keeps every property
// name as written, and these would cost the loader's size budget (bench/results.md). The minifier renames a listed
// name on every object, so never list one that a browser object the loader reads answers to, nor one that crosses
// its edge (the page's PracticeChat API, the configuration's JSON, the frame protocol): not `remove`, `host`, `clear`,
// `nonce`, `locale`, `alert`, `fetch`, `open`, `type`... nor one that crosses to the loader's second file, which is
// minified apart (the frame's `post` and `remove`, src/loader/frame.ts, and the held messages' `handleEvent`). That
// is why the event hub's method is `removeAllListeners`, not `clear` (a Map's), and why data-client-id is read with
// getAttribute, not as `dataset.clientId`.
// Checked against the loader's edge (test/unit/bundles/loader-bundle.test.ts) and against real Chromium's, Firefox's
// and WebKit's objects (test/browser/loader-property-names.test.ts). Nothing in the loader imports this file.
export const LOADER_OWN_PROPERTIES: readonly string[] = [
  'api',
  'events',
  'emit',
  'removeAllListeners',
  'setUnread',
  'setOpen',
  'relabel',
  'shadow',
  'button',
  'relayOrigin',
  'clientId',
  'win',
  'wait',
  'report',
  'loadFrame',
  'addFrame',
];

/** The minifier's setting: exactly the listed names. */
export const loaderOwnPropertiesPattern = (): RegExp => new RegExp(`^(${LOADER_OWN_PROPERTIES.join('|')})$`);
