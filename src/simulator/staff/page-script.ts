// The staff page's script, served as /staff/staff.js (script-src 'self', no build step). Plain ES2020 kept as a
// string so the server build carries it with no file copying. It polls the staff API: the list every 2 s, the open
// conversation every second (only messages after the last one it has). Text goes into the page as text nodes only.
export const STAFF_PAGE_SCRIPT = String.raw`
const API = '/staff/api/conversations';
const LIST_EVERY_MS = 2000;
const CONVERSATION_EVERY_MS = 1000;

const byId = (id) => document.getElementById(id);
const list = byId('conversation-list');
const listStatus = byId('list-status');
const heading = byId('conversation-heading');
const meta = byId('conversation-meta');
const log = byId('messages');
const logBox = byId('message-log');
const form = byId('reply-form');
const replyLabel = byId('reply-label');
const replyText = byId('reply-text');
const sendButton = byId('send-reply');
const resolveButton = byId('resolve');
const actionStatus = byId('action-status');

const ERRORS = {
  conversation_resolved: 'This conversation is resolved: it takes no more replies.',
  invalid: 'A reply is 1 to 4000 characters.',
  not_found: 'This conversation does not exist (the simulator may have restarted).',
};

let selected = /^#[A-Za-z0-9_-]{1,200}$/.test(location.hash) ? location.hash.slice(1) : null;
let lastSequence = 0;
let resolved = false;
let conversationTimer = null;

const setText = (node, text) => {
  if (node.textContent !== text) node.textContent = text;
};
const say = (node, text, isError) => {
  node.classList.toggle('error', Boolean(isError));
  node.textContent = text;
};
const time = (iso) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
};
const element = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

async function api(path, init) {
  const response = await fetch(path, { cache: 'no-store', ...init });
  const body = await response.json().catch(() => null);
  return { status: response.status, body };
}

const authorLabel = (message) =>
  message.sender === 'visitor' ? 'Visitor' : message.sender === 'bot' ? message.author_name + ' (bot)' : message.author_name + ' (team member)';
// The patient's language as the relay told the service, named in English for the staff: "Spanish (es)".
const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
const language = (c) => {
  try {
    return languageNames.of(c.language) + ' (' + c.language + ')';
  } catch {
    return String(c.language);
  }
};
const facts = (c) =>
  language(c) + ' · ' + c.status + ' · ' + c.mode + ' mode · ' + c.message_stats.total + (c.message_stats.total === 1 ? ' message' : ' messages') +
  ' · started ' + time(c.created_at);

// Updated in place, keyed by id, so a refresh never takes keyboard focus away from the button it is on.
function renderList(conversations) {
  const items = new Map([...list.children].map((li) => [li.dataset.id, li]));
  conversations.forEach((c, index) => {
    let li = items.get(c.id);
    if (!li) {
      li = element('li');
      li.dataset.id = c.id;
      const button = element('button');
      button.type = 'button';
      button.append(element('span', 'id'), element('span', 'facts'));
      button.addEventListener('click', () => select(c.id));
      li.append(button);
    }
    const button = li.firstChild;
    setText(button.querySelector('.id'), c.practice_name + ' · ' + c.id);
    setText(button.querySelector('.facts'), facts(c));
    if (c.id === selected) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
    if (list.children[index] !== li) list.insertBefore(li, list.children[index] || null);
  });
  setText(listStatus, conversations.length === 0 ? 'No conversations yet: start one in the chat panel.' : conversations.length + (conversations.length === 1 ? ' conversation, newest first.' : ' conversations, newest first.'));
}

async function refreshList() {
  try {
    const { status, body } = await api(API);
    if (status === 200 && body && Array.isArray(body.conversations)) renderList(body.conversations);
    else say(listStatus, 'The list could not be read (error ' + status + ').', true);
  } catch {
    say(listStatus, 'The simulator is not answering; trying again.', true);
  }
  setTimeout(refreshList, LIST_EVERY_MS);
}

function appendMessages(messages) {
  for (const message of messages) {
    if (message.sequence <= lastSequence) continue;
    const li = element('li', message.sender);
    const when = element('time', '', time(message.created_at));
    when.dateTime = message.created_at;
    li.append(element('span', 'author', authorLabel(message)), when, element('p', 'text', message.text));
    log.append(li);
    lastSequence = message.sequence;
  }
  if (messages.length > 0) logBox.scrollTop = logBox.scrollHeight;
}

function showConversation(c) {
  setText(heading, 'Conversation ' + c.id);
  setText(meta, c.practice_name + ' · ' + language(c) + ' · status ' + c.status + ' · ' + c.mode + ' mode · bot ' + c.bot_name + ' · team member ' + c.team_member_name);
  setText(replyLabel, 'Reply as ' + c.team_member_name);
  resolved = c.status === 'resolved';
  form.hidden = false;
  replyText.disabled = resolved;
  sendButton.disabled = resolved;
  resolveButton.disabled = resolved;
}

async function refreshConversation() {
  clearTimeout(conversationTimer);
  const id = selected;
  if (id === null) return;
  try {
    const { status, body } = await api(API + '/' + encodeURIComponent(id) + '?after=' + lastSequence);
    if (id !== selected) return;
    if (status === 200 && body && body.conversation) {
      showConversation(body.conversation);
      appendMessages(body.messages);
    } else if (status === 404) {
      setText(heading, 'Conversation not found');
      form.hidden = true;
    }
  } catch {
    say(actionStatus, 'The simulator is not answering; trying again.', true);
  }
  if (id === selected) conversationTimer = setTimeout(refreshConversation, CONVERSATION_EVERY_MS);
}

function select(id) {
  selected = id;
  lastSequence = 0;
  log.replaceChildren();
  say(actionStatus, '');
  history.replaceState(null, '', '#' + id);
  for (const button of list.querySelectorAll('button')) {
    if (button.parentElement.dataset.id === id) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  void refreshConversation();
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const id = selected;
  const text = replyText.value;
  if (id === null || resolved) return;
  if (text.trim() === '') {
    say(actionStatus, 'Write a reply first.', true);
    replyText.focus();
    return;
  }
  sendButton.disabled = true;
  try {
    const { status, body } = await api(API + '/' + encodeURIComponent(id) + '/messages', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text }),
    });
    if (status === 201) {
      replyText.value = '';
      say(actionStatus, 'Reply sent as ' + body.author_name + '.');
      if (id === selected) void refreshConversation();
    } else {
      say(actionStatus, ERRORS[body && body.code] || 'The reply was not sent (error ' + status + '). Try again.', true);
    }
  } catch {
    say(actionStatus, 'The reply was not sent: the simulator is not answering. Try again.', true);
  } finally {
    sendButton.disabled = resolved;
  }
});

resolveButton.addEventListener('click', async () => {
  const id = selected;
  if (id === null) return;
  try {
    const { status, body } = await api(API + '/' + encodeURIComponent(id) + '/resolve', { method: 'POST' });
    if (status === 200) {
      say(actionStatus, 'Conversation resolved.');
      if (id === selected) void refreshConversation();
    } else {
      say(actionStatus, ERRORS[body && body.code] || 'Not resolved (error ' + status + '). Try again.', true);
    }
  } catch {
    say(actionStatus, 'Not resolved: the simulator is not answering. Try again.', true);
  }
});

void refreshList();
if (selected !== null) void refreshConversation();
`;
