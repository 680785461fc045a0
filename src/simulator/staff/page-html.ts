// The staff page's markup. Plain HTML: the script (page-script.ts) fills the list and the conversation, with text
// nodes only, never markup built from a message.
export const STAFF_PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Staff inbox · upstream simulator</title>
<link rel="stylesheet" href="/staff/staff.css">
<script type="module" src="/staff/staff.js"></script>
</head>
<body>
<header>
  <h1>Staff inbox</h1>
  <p>The practice's side of the upstream simulator: read the conversations and answer as the team member. A reply here switches the conversation to a person (agent mode); the patient sees it in the chat panel.</p>
</header>
<main>
  <section class="list" aria-labelledby="list-heading">
    <h2 id="list-heading">Conversations</h2>
    <p id="list-status" class="status" role="status"></p>
    <ul id="conversation-list"></ul>
  </section>
  <section class="conversation" aria-labelledby="conversation-heading">
    <h2 id="conversation-heading" tabindex="-1">No conversation selected</h2>
    <p id="conversation-meta" class="meta"></p>
    <div id="message-log" class="log" role="log" aria-label="Messages" aria-live="polite"><ol id="messages" class="messages"></ol></div>
    <form id="reply-form" class="reply" hidden>
      <label for="reply-text" id="reply-label">Reply as the team member</label>
      <textarea id="reply-text" name="text" rows="3" maxlength="4000" required></textarea>
      <div class="actions">
        <button type="submit" id="send-reply">Send reply</button>
        <button type="button" id="resolve" class="secondary">Resolve conversation</button>
      </div>
    </form>
    <p id="action-status" class="status" role="status"></p>
  </section>
</main>
</body>
</html>
`;
