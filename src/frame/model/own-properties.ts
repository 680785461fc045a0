// The property names that only the panel's model and what it is built from carry (its dependencies, the transport's
// methods, the conversation's handle, the outbox's and the follower's and its states', the messages it shows), which
// the panel build shortens (vite.config.ts).
// Minified code keeps every property name as written, so the seams between the model's parts would cost the panel's
// size budget (bench/results.md). The minifier renames a listed name on every object in the panel's one chunk, so
// never list one that Preact, signals or a browser object the panel reads answers to, nor one that crosses its edge
// (the catalog's keys, the configuration, the relay's answers and stream, the frame protocol, what sessionStorage
// holds): not `send`, `retry`, `typing`, `messages`, `dispose`, `clear`, `stop`, `events`, `endChat`, `random`...
// That is why the outbox's methods are `enqueue`, `resend` and `abandon`.
// Checked against the panel's edge (test/unit/bundles/frame-bundle.test.ts) and against real Chromium's, Firefox's and
// WebKit's objects (test/browser/panel-property-names.test.ts). Nothing in the panel imports this file.
export const PANEL_OWN_PROPERTIES: readonly string[] = [
  // The model's dependencies and what it hands the panel.
  'clientId',
  'handles',
  'analytics',
  'newKey',
  'setTimer',
  'clearTimer',
  'onUnread',
  'onAlert',
  'connectionTrouble',
  'announcement',
  'agentName',
  'setPanelOpen',
  'setTabHidden',
  'startNewChat',
  // The transport, its methods and its error's pause (the model's escalate too).
  'transport',
  'getConfiguration',
  'createConversation',
  'sendMessage',
  'messagesAfter',
  'escalate',
  'setLanguage',
  'endConversation',
  'retryAfterMs',
  // A message as the panel shows it.
  'authorName',
  'delivery',
  'createdAt',
  // The outbox.
  'ensureConversation',
  'onExpired',
  'onResolved',
  'onSent',
  'enqueue',
  'resend',
  'abandon',
  // The conversation's handle.
  'held',
  'ensure',
  'resume',
  'forget',
  'end',
  'onOpened',
  'onForgotten',
  // The follower, its states, and what decides how often it polls.
  'silence',
  'heard',
  'drops',
  'poll',
  'reopen',
  'pollContext',
  'onMessages',
  'onStatus',
  'endsConversation',
  'follow',
  'catchUp',
  'schedulePoll',
  'expectReply',
  'restart',
  'stopFollowing',
  'shutDown',
  'msSinceVisitorSent',
  'panelOpen',
  'tabHidden',
  'awaitingReply',
];

/** The minifier's setting: exactly the listed names. */
export const panelOwnPropertiesPattern = (): RegExp => new RegExp(`^(${PANEL_OWN_PROPERTIES.join('|')})$`);
