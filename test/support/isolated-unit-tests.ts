// The unit test files that run each in a fresh worker (the `unit-isolated` project, vite.config.ts): each changes
// something another file in a shared worker would see, as test/support/isolation-markers.ts reads it. Every other
// unit file runs in the `unit` project, where a worker keeps one module graph for all its files and imports each
// module once. test/unit/shared-module-graph.test.ts keeps this list and the scan in agreement.
export const ISOLATED_UNIT_TESTS: readonly string[] = [
  // A DOM environment (happy-dom) and what the browser code does to its globals.
  'test/unit/frame/accessibility.test.tsx',
  'test/unit/frame/announcement-and-typing.test.tsx',
  'test/unit/frame/app.test.tsx',
  'test/unit/frame/greeting.test.tsx',
  'test/unit/frame/inline-configuration.test.ts',
  'test/unit/i18n/locale-source.test.tsx',
  'test/unit/loader/boot.test.ts',
  'test/unit/loader/chosen-language.test.ts',
  'test/unit/loader/frame-messages.test.ts',
  'test/unit/loader/launcher.test.ts',
  'test/unit/loader/script-tag.test.ts',
  'test/unit/loader/title-alert.test.ts',
  // A built-in patched for a test (crypto.randomUUID taken away; AbortController and Intl's constructors counted).
  'test/unit/frame/random-key.test.ts',
  'test/unit/i18n/numbers.test.ts',
  'test/unit/relay/send-window.test.ts',
  // A mocked module: vi.mock replaces a module for the imports evaluated after it, and in a shared worker an earlier
  // file has loaded the module already (the counts through the mock stay at nothing).
  'test/unit/live/frames-once.test.ts',
  'test/unit/live/redis-event-bus.test.ts',
  'test/unit/relay/client-address-kept.test.ts',
  'test/unit/relay/hash-once.test.ts',
  // Modules loaded in an order of its own (the relay after another server has started).
  'test/unit/live/stream-after-another-server.test.ts',
  // Fake timers.
  'test/unit/live/stream-sink.test.ts',
  'test/unit/live/stream-sweep.test.ts',
  'test/unit/relay/deliver-once.test.ts',
  'test/unit/relay/log.test.ts',
];
