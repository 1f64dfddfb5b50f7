// The approvals inbox: writes waiting for this person's decision, each as its card in words, to
// approve, reject or edit and approve; what was decided; and the standing approvals. The person
// is whoever the chat's key, entity and organisation name (the API decides what they may see).
import {
  access,
  anyOf,
  call,
  fromNow,
  person,
  saveAccess,
  say,
  sayUnlessSaid,
  tenantQuery,
  when,
} from './access.js';
import { callEditor, fieldWords } from './approval-edit.js';
import { $, el } from './dom.js';
import { loadGrants, wireGrants } from './standing.js';

let titles = 0;

const approvals = (n) => `${n} approval${n === 1 ? '' : 's'}`;

/** What a decision came to, in words. */
const OUTCOME = {
  executed: () => 'Approved: it was carried out.',
  failed: (answer) => `Approved, but it failed: ${answer.error ?? 'the books refused it'}.`,
  rejected: () => 'Rejected: nothing was done.',
  awaiting_approval: () => 'Your approval is recorded; it still waits for another approver.',
};

/** A decided write's state, in words. */
const STATE = {
  approved: 'Approved, being carried out',
  executed: 'Approved and carried out',
  failed: 'Approved, but it failed',
  rejected: 'Rejected',
  expired: 'Expired before it was decided',
  awaiting_approval: 'Waiting for approval',
};

const roleWords = (roles) => anyOf(roles.map((r) => (r === 'owner' ? 'an owner' : `an ${r}`)));

/** The lines every card shows: what the write is, who asked, and why it needs approval. */
function cardBody(item) {
  const id = `approval-title-${++titles}`;
  const details = el(
    'dl',
    { className: 'details' },
    ...item.details.flatMap((d) => [el('dt', { textContent: d.label }), el('dd', { textContent: d.value })]),
  );
  const needed = item.approversNeeded;
  const why = el(
    'p',
    { className: 'why' },
    el('strong', { textContent: 'Why it needs approval: ' }),
    `${item.reason ?? 'the approval policy gives it to another person'}. `,
    `It needs ${approvals(needed)} from ${item.requiredRoles.length ? roleWords(item.requiredRoles) : 'another person'}.`,
  );
  const asked = el('p', {
    className: 'asked',
    textContent: `Asked by ${person(item.requestedBy)}${item.requestedAt ? ` on ${when(item.requestedAt)}` : ''}.`,
  });
  const article = el(
    'article',
    { className: 'panel approval' },
    el('h3', { id, textContent: item.summary || fieldWords(item.tool) }),
    item.details.length > 0 ? details : '',
    asked,
    why,
  );
  article.setAttribute('aria-labelledby', id);
  if (item.decisions.length > 0) article.append(decisions(item.decisions));
  return article;
}

/** Who decided what so far, with the fields an approver changed. */
function decisions(votes) {
  const list = el(
    'ul',
    { className: 'decisions' },
    ...votes.map((v) => {
      const line = el('li', {
        textContent: `${person(v.userId)} ${v.decision === 'approve' ? 'approved' : 'rejected'} on ${when(v.at)}${v.reason ? `: “${v.reason}”` : ''}`,
      });
      if (v.edited) {
        const changes = Object.keys(v.edited.after).map(
          (field) =>
            `${fieldWords(field)} ${JSON.stringify(v.edited.before[field])} → ${JSON.stringify(v.edited.after[field])}`,
        );
        line.append(el('span', { className: 'changed', textContent: ` (changed ${changes.join('; ')})` }));
      }
      return line;
    }),
  );
  list.setAttribute('aria-label', 'Decisions so far');
  return list;
}

// ---- pending -------------------------------------------------------------------------------

function pendingCard(item) {
  const article = cardBody(item);
  article.append(
    el('p', {
      className: 'expires',
      textContent: `Expires ${fromNow(item.expiresAt)} (${when(item.expiresAt)}).`,
    }),
  );
  const reasonId = `reason-${titles}`;
  const reason = el('input', { id: reasonId, maxLength: 1000, placeholder: 'e.g. checked against the bill' });
  const approve = el('button', { type: 'button', className: 'primary', textContent: 'Approve' });
  const reject = el('button', { type: 'button', className: 'danger', textContent: 'Reject' });
  const edit = el('button', { type: 'button', textContent: 'Edit' });
  edit.setAttribute('aria-expanded', 'false');
  const editor = callEditor(item.args);
  editor.element.hidden = true;
  const outcome = el('p', { className: 'outcome', role: 'status' });
  const actions = el(
    'div',
    { className: 'decide' },
    el('label', { htmlFor: reasonId, textContent: 'Reason (optional)' }),
    reason,
    el('div', { className: 'buttons' }, approve, reject, edit),
  );
  article.append(editor.element, actions, outcome);
  const parts = { item, reason, editor, outcome, actions, buttons: [approve, reject, edit] };
  approve.addEventListener('click', () => void decide('approve', parts));
  reject.addEventListener('click', () => void decide('reject', parts));
  edit.addEventListener('click', () => {
    const open = editor.element.hidden;
    editor.element.hidden = !open;
    edit.setAttribute('aria-expanded', String(open));
    edit.textContent = open ? 'Cancel the changes' : 'Edit';
    approve.textContent = open ? 'Approve with the changes' : 'Approve';
    if (open) editor.focus();
  });
  const li = el('li', {}, article);
  li.dataset.approvalId = item.approvalId;
  return li;
}

function tell(outcome, text, error = false) {
  outcome.textContent = text;
  outcome.classList.toggle('error', error);
  outcome.setAttribute('role', error ? 'alert' : 'status');
}

async function decide(decision, { item, reason, editor, outcome, actions, buttons }) {
  const body = { decision };
  if (reason.value.trim()) body.reason = reason.value.trim();
  if (decision === 'approve' && !editor.element.hidden) {
    const edited = editor.changes();
    if (edited.error) return tell(outcome, `Not sent: ${edited.error}`, true);
    if (Object.keys(edited.args).length > 0) body.args = edited.args;
  }
  for (const button of buttons) button.disabled = true;
  tell(outcome, decision === 'approve' ? 'Approving…' : 'Rejecting…');
  const answer = await call('POST', `/v1/approvals/${encodeURIComponent(item.approvalId)}`, body);
  if (!answer.ok) {
    tell(outcome, `Could not ${decision}: ${answer.message}`, true);
    // Decided or expired meanwhile, or gone: nothing more to do here.
    if (answer.status === 409 || answer.status === 404) {
      actions.remove();
      countWaiting(-1);
    } else for (const button of buttons) button.disabled = false;
    return;
  }
  const words = (OUTCOME[answer.data.status] ?? (() => `It is ${answer.data.status}.`))(answer.data);
  actions.remove();
  editor.element.remove();
  tell(outcome, words, answer.data.status === 'failed');
  outcome.dataset.status = answer.data.status;
  countWaiting(-1);
  if (answer.data.response)
    outcome.after(el('p', { className: 'muted', textContent: `The maker sees: ${answer.data.response}` }));
  say(`${item.summary || fieldWords(item.tool)} — ${words}`);
}

/** How many cards wait for this person's decision, on the Pending tab. */
let waiting = 0;
function countWaiting(change) {
  waiting = Math.max(0, waiting + change);
  $('#pending-count').textContent = `(${waiting})`;
}

async function loadPending() {
  const tell = sayUnlessSaid();
  const answer = await call('GET', `/v1/approvals?${tenantQuery({ status: 'pending' })}`);
  if (!answer.ok) {
    $('#pending-list').replaceChildren();
    $('#pending-count').textContent = '';
    return tell(`Could not load the approvals: ${answer.message}`, true);
  }
  const items = answer.data.approvals;
  $('#pending-list').replaceChildren(...items.map(pendingCard));
  $('#no-pending').hidden = items.length > 0;
  waiting = 0;
  countWaiting(items.length);
  tell(
    items.length === 0
      ? `Nothing waits for your decision in ${access.entityId}.`
      : `${approvals(items.length)} ${items.length === 1 ? 'waits' : 'wait'} for your decision in ${access.entityId}.`,
  );
}

// ---- decided -------------------------------------------------------------------------------

function decidedCard(item) {
  const article = cardBody(item);
  const state = el('p', {
    className: `state ${item.status}`,
    textContent: `${STATE[item.status] ?? item.status}.`,
  });
  article.querySelector('h3').after(state);
  const li = el('li', {}, article);
  li.dataset.approvalId = item.approvalId;
  li.dataset.status = item.status;
  return li;
}

async function loadDecided() {
  const tell = sayUnlessSaid();
  const answer = await call('GET', `/v1/approvals?${tenantQuery({ status: 'decided' })}`);
  if (!answer.ok) return tell(`Could not load the decided approvals: ${answer.message}`, true);
  const items = answer.data.approvals;
  $('#decided-list').replaceChildren(...items.map(decidedCard));
  $('#no-decided').hidden = items.length > 0;
  tell(`${approvals(items.length)} decided in ${access.entityId}.`);
}

// ---- tabs ----------------------------------------------------------------------------------

const TABS = { pending: loadPending, decided: loadDecided, standing: loadGrants };
const tabs = () => [...document.querySelectorAll('[role="tab"]')];

function show(tab) {
  for (const other of tabs()) {
    const selected = other === tab;
    other.setAttribute('aria-selected', String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(`#${other.getAttribute('aria-controls')}`).hidden = !selected;
  }
  void TABS[tab.getAttribute('aria-controls')]();
}

const current = () => tabs().find((t) => t.getAttribute('aria-selected') === 'true') ?? tabs()[0];

for (const tab of tabs()) {
  tab.addEventListener('click', () => show(tab));
  tab.addEventListener('keydown', (event) => {
    const all = tabs();
    const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (!step) return;
    event.preventDefault();
    const next = all[(all.indexOf(tab) + step + all.length) % all.length];
    next.focus();
    show(next);
  });
}

// ---- wiring --------------------------------------------------------------------------------

$('#api-key').value = access.apiKey;
$('#entity-id').value = access.entityId;
$('#org-id').value = access.orgId;
$('#access-form').addEventListener('submit', (event) => {
  event.preventDefault();
  saveAccess($('#api-key').value.trim(), $('#entity-id').value.trim(), $('#org-id').value.trim());
  show(current());
});
wireGrants();
show(current());
