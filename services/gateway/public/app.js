import { PipelineDebugger } from './debugger.js';
import { renderMarkdown } from './markdown.js';
import { readEvents } from './sse.js';

const $ = (selector) => document.querySelector(selector);
const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

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

async function errorText(response) {
  try {
    return (await response.json()).error?.message ?? response.statusText;
  } catch {
    return response.statusText;
  }
}

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

// ---- cards -------------------------------------------------------------------------------

const cards = {
  params(spec) {
    const card = el('section', { className: 'card params' });
    card.setAttribute('aria-label', spec.operation ?? 'Details');
    card.append(el('h3', { textContent: spec.operation ?? 'Details' }));
    const list = el('dl');
    for (const item of spec.applied ?? [])
      list.append(el('dt', { textContent: item.label }), el('dd', { textContent: String(item.value) }));
    const pending = el('dl', { className: 'pending' });
    for (const item of spec.pending ?? [])
      pending.append(el('dt', { textContent: item.label }), el('dd', { textContent: item.hint ?? '' }));
    card.append(list, pending);
    return card;
  },
  clarification(spec) {
    const options = Array.isArray(spec.options) ? spec.options : [];
    const type = spec.type === 'dropdown' || spec.type === 'checkbox' ? spec.type : 'radio';
    const name = `clarify-${Math.random().toString(36).slice(2)}`;
    const form = el('form', { className: 'card clarification' });
    const set = el('fieldset', {}, el('legend', { textContent: spec.question ?? 'Please choose' }));
    if (type === 'dropdown') {
      const select = el('select', { name });
      select.setAttribute('aria-label', spec.question ?? 'Choose');
      for (const option of options)
        select.append(el('option', { value: option.value, textContent: option.label }));
      set.append(select);
    } else {
      for (const option of options) {
        const input = el('input', {
          type: type === 'checkbox' ? 'checkbox' : 'radio',
          name,
          value: option.value,
        });
        input.dataset.label = option.label;
        set.append(el('label', {}, input, ` ${option.label}`), el('br'));
      }
    }
    const submit = el('button', { type: 'submit', className: 'primary', textContent: 'Send answer' });
    form.append(set, submit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      let labels;
      if (type === 'dropdown') {
        const select = form.querySelector('select');
        labels = [select.selectedOptions[0]?.textContent ?? ''];
      } else {
        labels = [...form.querySelectorAll('input:checked')].map((input) => input.dataset.label);
      }
      if (labels.length === 0 || running) return;
      for (const control of form.querySelectorAll('input, select, button')) control.disabled = true;
      void ask({ query: labels.join(', ') });
    });
    return form;
  },
};

function mcqCard(mcq) {
  const card = el('section', { className: 'card mcq' });
  card.setAttribute('role', 'group');
  card.setAttribute('aria-label', 'Confirmation needed');
  if (mcq.unrequested) {
    card.classList.add('unrequested');
    card.append(
      el('p', {
        className: 'warning',
        textContent:
          'You did not ask for this change. It was suggested by something munim read — check it before confirming.',
      }),
    );
  }
  const changes = mcq.changes ?? [];
  // The changes are listed below: the question's own lines of them would say it twice.
  card.append(el('h3', { textContent: changes.length > 0 ? mcq.question.split('\n')[0] : mcq.question }));
  // Facts in words from the agent; the call's ids and tool name are not for people to read.
  const facts = mcq.details ?? (mcq.record ? [{ label: 'Record', value: mcq.record }] : []);
  if (facts.length > 0) {
    const details = el('dl');
    for (const { label, value } of facts) {
      details.append(el('dt', { textContent: label }), el('dd', { textContent: value }));
    }
    card.append(details);
  }
  if (changes.length > 0) {
    const list = el('dl', { className: 'changes' });
    for (const change of changes) {
      const now = change.before === undefined ? 'set to ' : `${change.before} → `;
      list.append(
        el('dt', { textContent: change.field }),
        el('dd', { textContent: `${now}${change.after}` }),
      );
    }
    card.append(list);
  }
  let typed = null;
  if (mcq.confirm_text) {
    typed = el('input', { type: 'text', autocomplete: 'off', className: 'typed-input' });
    card.append(el('label', { className: 'typed' }, `Type "${mcq.confirm_text}" to confirm: `, typed));
  }
  const buttons = el('div', { className: 'options' });
  for (const option of mcq.options) {
    const button = el('button', {
      type: 'button',
      textContent: option.label,
      className: option.value === 'confirm' ? 'primary' : '',
    });
    button.dataset.value = option.value;
    if (option.value === 'confirm' && typed) {
      button.disabled = true;
      typed.addEventListener('input', () => {
        button.disabled = typed.value.trim() !== mcq.confirm_text;
      });
    }
    button.addEventListener('click', () => {
      if (running) return;
      for (const control of card.querySelectorAll('button, input')) control.disabled = true;
      card.append(
        el('p', { className: 'done', textContent: option.value === 'confirm' ? 'Confirmed.' : 'Cancelled.' }),
      );
      void ask({
        mcqResponse: {
          actionId: mcq.actionId,
          value: option.value,
          ...(typed && option.value === 'confirm' ? { typedConfirmation: typed.value.trim() } : {}),
        },
      });
    });
    buttons.append(button);
  }
  card.append(buttons);
  return card;
}

function feedbackButtons(requestId) {
  const make = (signal, label, text) => {
    const button = el('button', { type: 'button', textContent: text });
    button.setAttribute('aria-label', label);
    button.setAttribute('aria-pressed', 'false');
    button.dataset.signal = signal;
    button.addEventListener('click', async () => {
      const response = await fetch('/v1/feedback', {
        method: 'POST',
        headers: headers(true),
        body: JSON.stringify({ requestId, signal, entityId: settings.entityId, orgId: settings.orgId }),
      });
      if (response.ok) {
        for (const other of button.parentElement.querySelectorAll('[data-signal]'))
          other.setAttribute('aria-pressed', 'false');
        button.setAttribute('aria-pressed', 'true');
      }
    });
    return button;
  };
  return [make('thumbs_up', 'Good answer', '▲ Helpful'), make('thumbs_down', 'Bad answer', '▼ Not helpful')];
}

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
      meta.append(...feedbackButtons(requestId), open);
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
        article.append(el('div', { className: 'meta' }, ...feedbackButtons(message.requestId), open));
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
