import { feedbackButtons, makeCards } from './cards.js';
import { PipelineDebugger } from './debugger.js';
import { $, el, errorText } from './dom.js';
import { renderMarkdown } from './markdown.js';
import { readEvents } from './sse.js';

const settings = {
  apiKey: sessionStorage.getItem('munim.apiKey') ?? '',
  entityId: localStorage.getItem('munim.entityId') ?? 'demo',
  orgId: localStorage.getItem('munim.orgId') ?? 'demo',
  /** Questions ask for the tools' full results (`?debug=true`), for the pipeline debugger. */
  debug: localStorage.getItem('munim.debug') === 'true',
};
let conversationId = null;
let running = null;
/** Files uploaded for the next question: `{ id, filename, category }`. */
let attached = [];
const debug = new PipelineDebugger($('#debugger'), $('#steps'), $('#debugger-request'));
/** Events of the requests of this page, for the debugger when a stream is still running. */
const liveEvents = new Map();

function headers(json = false) {
  return {
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
  };
}
const tenantQuery = () =>
  new URLSearchParams({ entityId: settings.entityId, orgId: settings.orgId }).toString();

function scrollDown() {
  const chat = $('#chat');
  chat.scrollTop = chat.scrollHeight;
}

function addUserMessage(text, files = []) {
  $('#empty').hidden = true;
  const message = el('div', { className: 'msg user', textContent: text });
  if (files.length > 0) {
    message.append(
      el(
        'div',
        { className: 'files' },
        ...files.map((f) => el('span', { className: 'chip', textContent: f.filename })),
      ),
    );
  }
  $('#chat').append(message);
  scrollDown();
}

// ---- attachments ---------------------------------------------------------------------------

function renderAttached() {
  $('#attachments').replaceChildren(
    ...attached.map((file) => {
      const remove = el('button', { type: 'button', textContent: '×' });
      remove.setAttribute('aria-label', `Remove ${file.filename}`);
      remove.addEventListener('click', () => {
        attached = attached.filter((f) => f.id !== file.id);
        renderAttached();
      });
      const chip = el('span', { className: 'chip' }, `${file.filename} · ${file.category}`, remove);
      chip.dataset.attachmentId = file.id;
      return chip;
    }),
  );
}

/** Uploads a chosen file; its chip waits for the next question, and its suggestion fills an empty box. */
async function attach(file) {
  const status = el('span', { className: 'chip pending', textContent: `Uploading ${file.name}…` });
  $('#attachments').append(status);
  const form = new FormData();
  form.set('entityId', settings.entityId);
  form.set('orgId', settings.orgId);
  if (conversationId) form.set('conversationId', conversationId);
  form.set('file', file);
  try {
    const response = await fetch('/v1/attachments', { method: 'POST', headers: headers(), body: form });
    if (!response.ok) throw new Error(await errorText(response));
    const uploaded = await response.json();
    attached.push({ id: uploaded.id, filename: uploaded.filename, category: uploaded.category });
    renderAttached();
    if (!$('#question').value.trim()) $('#question').value = uploaded.suggestedMessage;
    $('#question').focus();
  } catch (error) {
    renderAttached();
    $('#attachments').append(
      el('span', { className: 'chip error', role: 'alert', textContent: error.message }),
    );
  }
}

const { cards, mcqCard } = makeCards({ busy: () => running !== null, send: (input) => void ask(input) });
const sendFeedback = (requestId) => (signal) =>
  fetch('/v1/feedback', {
    method: 'POST',
    headers: headers(true),
    body: JSON.stringify({ requestId, signal, entityId: settings.entityId, orgId: settings.orgId }),
  });

// ---- asking --------------------------------------------------------------------------------

/** Sends a query (or an MCQ answer) and streams its events into a new assistant message. */
async function ask(input) {
  if (running) return;
  if (input.query) addUserMessage(input.query, input.files);
  const { files, ...body } = input;
  const controller = new AbortController();
  running = controller;
  $('#send').disabled = true;
  $('#stop').hidden = false;
  const message = el('article', { className: 'msg assistant' });
  message.setAttribute('aria-busy', 'true');
  const thinking = el('p', { className: 'thinking', textContent: 'Thinking…' });
  const answer = el('div', { className: 'answer' });
  const extras = el('div');
  const meta = el('div', { className: 'meta' });
  message.append(thinking, answer, extras, meta);
  $('#empty').hidden = true;
  $('#chat').append(message);
  scrollDown();
  let text = '';
  let requestId = null;
  try {
    const response = await fetch(settings.debug ? '/v1/query?debug=true' : '/v1/query', {
      method: 'POST',
      headers: headers(true),
      signal: controller.signal,
      body: JSON.stringify({
        entityId: settings.entityId,
        orgId: settings.orgId,
        ...(conversationId ? { conversationId } : {}),
        ...body,
      }),
    });
    if (!response.ok) throw new Error(await errorText(response));
    await readEvents(response, ({ event, data }) => {
      const at = performance.now();
      if (event === 'connected') {
        requestId = data.requestId;
        conversationId = data.conversationId;
        message.dataset.requestId = requestId;
        liveEvents.set(requestId, []);
        if (!debug.panel.hidden) debug.show(requestId);
      }
      liveEvents.get(requestId)?.push({ event, data, at });
      if (debug.requestId === requestId && replayed !== requestId) debug.add(event, data, at);
      switch (event) {
        case 'understanding_started':
        case 'route_classified':
        case 'executing_tool':
        case 'response_generating':
          thinking.textContent = event === 'executing_tool' ? `Calling ${data.tool}…` : 'Thinking…';
          break;
        case 'response_chunk':
          text += data.text;
          thinking.hidden = true;
          renderMarkdown(answer, text, cards);
          scrollDown();
          break;
        case 'response_replace':
          // The streamed text was not the answer (or the final checks changed it): show this instead.
          text = data.text;
          thinking.hidden = text !== '';
          renderMarkdown(answer, text, cards);
          scrollDown();
          break;
        case 'mcq':
          extras.append(mcqCard(data));
          break;
        case 'complete':
          thinking.hidden = true;
          renderMarkdown(answer, data.response, cards);
          break;
        case 'error':
          thinking.hidden = true;
          message.classList.add('error');
          answer.textContent = data.message;
          break;
      }
    });
  } catch (error) {
    thinking.hidden = true;
    message.classList.add('error');
    answer.textContent = controller.signal.aborted ? 'Stopped.' : `Could not ask: ${error.message}`;
  } finally {
    running = null;
    message.setAttribute('aria-busy', 'false');
    $('#send').disabled = false;
    $('#stop').hidden = true;
    if (requestId) {
      const open = el('button', { type: 'button', textContent: 'Debug', className: 'debug' });
      open.addEventListener('click', () => void openDebugger(requestId));
      meta.append(...feedbackButtons(sendFeedback(requestId)), open);
    }
    void loadConversations();
  }
}

/** The request the debugger shows from a replay with the tools' full results. */
let replayed = null;

/**
 * Shows the step cards of a request. The tools' full results are streamed only to a caller allowed
 * to debug (an admin key, or a gateway without authentication): the debugger asks the gateway for
 * them first, and otherwise shows this page's record of the request, or replays it as it is.
 */
async function openDebugger(requestId) {
  debug.show(requestId);
  const events = `/v1/requests/${encodeURIComponent(requestId)}/events`;
  const full = await fetch(`${events}?debug=true`, { headers: headers() }).catch(() => null);
  if (full?.ok) {
    // The replay follows a running request to its end: the chat's stream adds nothing more.
    replayed = requestId;
    await readEvents(full, ({ event, data }) => {
      if (debug.requestId === requestId) debug.add(event, data, null);
    });
    return;
  }
  const recorded = liveEvents.get(requestId);
  if (recorded) {
    for (const { event, data, at } of recorded) debug.add(event, data, at);
    return;
  }
  const response = await fetch(events, { headers: headers() });
  if (!response.ok) {
    debug.add('error', { code: String(response.status), message: await errorText(response) }, null);
    return;
  }
  await readEvents(response, ({ event, data }) => {
    if (debug.requestId === requestId) debug.add(event, data, null);
  });
}

// ---- conversations -------------------------------------------------------------------------

async function loadConversations() {
  const status = $('#sidebar-status');
  const response = await fetch(`/v1/conversations?${tenantQuery()}`, { headers: headers() });
  if (!response.ok) {
    status.textContent = response.status === 503 ? 'History is not available.' : await errorText(response);
    return;
  }
  status.textContent = '';
  const { conversations } = await response.json();
  const list = $('#conversations');
  list.replaceChildren(
    ...conversations.map((conversation) => {
      const open = el(
        'button',
        { type: 'button', className: 'open', title: conversation.preview ?? '' },
        el('strong', { textContent: `${conversation.displayId} ${conversation.name ?? 'Untitled'}` }),
        el('span', {
          textContent: `${new Date(conversation.updatedAt).toLocaleString()} · ${conversation.preview ?? ''}`,
        }),
      );
      open.setAttribute('aria-current', String(conversation.id === conversationId));
      open.addEventListener('click', () => void switchTo(conversation.id));
      const remove = el('button', { type: 'button', className: 'delete', textContent: '×' });
      remove.setAttribute('aria-label', `Delete ${conversation.displayId}`);
      remove.addEventListener('click', () => void removeConversation(conversation.id));
      return el('li', {}, open, remove);
    }),
  );
  if (conversations.length === 0) status.textContent = 'No conversations yet.';
}

function newChat() {
  if (running) running.abort();
  conversationId = null;
  attached = [];
  renderAttached();
  $('#chat').replaceChildren($('#empty'));
  $('#empty').hidden = false;
  debug.hide();
  void loadConversations();
  $('#question').focus();
}

async function switchTo(id) {
  const response = await fetch(`/v1/conversations/${encodeURIComponent(id)}?${tenantQuery()}`, {
    headers: headers(),
  });
  if (!response.ok) return;
  const conversation = await response.json();
  conversationId = conversation.id;
  $('#chat').replaceChildren($('#empty'));
  $('#empty').hidden = true;
  for (const message of conversation.messages) {
    if (message.role === 'user') {
      $('#chat').append(el('div', { className: 'msg user', textContent: message.content }));
    } else if (message.role === 'assistant') {
      const article = el('article', { className: 'msg assistant' });
      const answer = el('div', { className: 'answer' });
      renderMarkdown(answer, message.content, cards);
      article.append(answer);
      if (message.requestId) {
        const open = el('button', { type: 'button', textContent: 'Debug', className: 'debug' });
        open.addEventListener('click', () => void openDebugger(message.requestId));
        article.append(
          el('div', { className: 'meta' }, ...feedbackButtons(sendFeedback(message.requestId)), open),
        );
      }
      $('#chat').append(article);
    }
  }
  scrollDown();
  void loadConversations();
}

async function removeConversation(id) {
  const response = await fetch(`/v1/conversations/${encodeURIComponent(id)}?${tenantQuery()}`, {
    method: 'DELETE',
    headers: headers(),
  });
  if (!response.ok && response.status !== 404) return;
  if (id === conversationId) newChat();
  else void loadConversations();
}

// ---- wiring --------------------------------------------------------------------------------

$('#api-key').value = settings.apiKey;
$('#entity-id').value = settings.entityId;
$('#org-id').value = settings.orgId;
$('#debug-results').checked = settings.debug;
$('#settings-form').addEventListener('submit', (event) => {
  event.preventDefault();
  settings.apiKey = $('#api-key').value.trim();
  settings.entityId = $('#entity-id').value.trim();
  settings.orgId = $('#org-id').value.trim();
  settings.debug = $('#debug-results').checked;
  localStorage.setItem('munim.debug', String(settings.debug));
  // The key stays for this tab only; entity and org are remembered.
  sessionStorage.setItem('munim.apiKey', settings.apiKey);
  localStorage.setItem('munim.entityId', settings.entityId);
  localStorage.setItem('munim.orgId', settings.orgId);
  $('#settings').open = false;
  newChat();
  void loadSuggestions();
});
$('#ask').addEventListener('submit', (event) => {
  event.preventDefault();
  const question = $('#question').value.trim();
  if (!question || running) return;
  $('#question').value = '';
  const files = attached;
  attached = [];
  renderAttached();
  void ask({
    query: question,
    ...(files.length > 0 ? { attachmentIds: files.map((f) => f.id), files } : {}),
  });
});
$('#attach-button').addEventListener('click', () => $('#attach').click());
$('#attach').addEventListener('change', () => {
  for (const file of $('#attach').files ?? []) void attach(file);
  $('#attach').value = '';
});
$('#question').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey) {
    event.preventDefault();
    $('#ask').requestSubmit();
  }
});
$('#stop').addEventListener('click', () => running?.abort());
$('#new-chat').addEventListener('click', newChat);
$('#debugger-close').addEventListener('click', () => debug.hide());
$('#empty .suggestions').addEventListener('click', (event) => {
  const button = event.target.closest('[data-suggest]');
  if (!button) return;
  $('#question').value = button.dataset.suggest;
  $('#question').focus();
});

/** The entity's quick suggestions (or its intents' phrases); the built-in ones stay when none come. */
async function loadSuggestions() {
  const response = await fetch(`/v1/suggestions?${tenantQuery()}`, { headers: headers() }).catch(() => null);
  if (!response?.ok) return;
  const { suggestions } = await response.json();
  if (!Array.isArray(suggestions) || suggestions.length === 0) return;
  $('#empty .suggestions').replaceChildren(
    ...suggestions.map(({ text }) => {
      const button = el('button', { type: 'button', textContent: text });
      button.dataset.suggest = text;
      return el('li', {}, button);
    }),
  );
}
void loadConversations();
void loadSuggestions();
