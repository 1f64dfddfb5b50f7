// Standing approvals on the approvals page: the entity's grants with what is left of each, a form
// to grant one (a kind of write or a tool, a party, amounts, uses, an expiry), and revoking.
// Amounts are shown as the API gives them, in the business's currency.
import { call, person, say, sayUnlessSaid, tenantQuery, when } from './access.js';
import { $, el } from './dom.js';

const CLASS_WORDS = {
  payment: 'payments',
  transfer: 'transfers',
  document: 'documents',
  journal: 'journals',
  party: 'parties',
  edit: 'edits',
  destructive: 'deletes and voids',
  send: 'sending out',
  any: 'any write',
};
const STATUS_WORDS = {
  active: 'active',
  revoked: 'revoked',
  exhausted: 'used up',
  expired: 'expired',
};

/** What a grant covers, in words. */
const covers = (g) =>
  [g.class ? (CLASS_WORDS[g.class] ?? g.class) : '', g.tool ? `the tool ${g.tool}` : '']
    .filter(Boolean)
    .join(' by ');

const amount = (value) => (value === null ? 'no limit' : String(value));

function grantRow(g) {
  const actions = el('td');
  if (g.status === 'active') {
    const revoke = el('button', { type: 'button', className: 'danger', textContent: 'Revoke' });
    revoke.setAttribute('aria-label', `Revoke the standing approval for ${covers(g)}`);
    revoke.addEventListener('click', () => void revokeGrant(g));
    actions.append(revoke);
  }
  const row = el(
    'tr',
    {},
    el('th', { scope: 'row', textContent: covers(g) }),
    el('td', { textContent: g.party ?? 'any party' }),
    el('td', { textContent: amount(g.maxAmount) }),
    el('td', {
      textContent: g.maxTotal === null ? 'no limit' : `${g.usedTotal} used of ${g.maxTotal}`,
    }),
    el('td', { textContent: `${g.used} of ${g.uses}` }),
    el('td', { textContent: when(g.expiresAt) }),
    el('td', { textContent: person(g.grantedBy) }),
    el('td', { className: `grant-${g.status}`, textContent: STATUS_WORDS[g.status] ?? g.status }),
    actions,
  );
  row.dataset.grantId = g.grantId;
  row.dataset.status = g.status;
  return row;
}

/** Loads started: a load answered late (a slow gateway) does not replace a newer load's table. */
let loads = 0;

export async function loadGrants() {
  const load = ++loads;
  const tell = sayUnlessSaid();
  const answer = await call('GET', `/v1/approvals/standing?${tenantQuery()}`);
  if (load !== loads) return;
  if (!answer.ok) {
    $('#grants tbody').replaceChildren();
    return tell(`Could not load the standing approvals: ${answer.message}`, true);
  }
  const { grants } = answer.data;
  $('#grants tbody').replaceChildren(...grants.map(grantRow));
  $('#no-grants').hidden = grants.length > 0;
  const active = grants.filter((g) => g.status === 'active').length;
  tell(`${active} active standing approval${active === 1 ? '' : 's'}, ${grants.length} in all.`);
}

async function revokeGrant(g) {
  if (
    !confirm(`Revoke the standing approval for ${covers(g)}? Writes it covered need approval again at once.`)
  )
    return;
  const answer = await call(
    'DELETE',
    `/v1/approvals/standing/${encodeURIComponent(g.grantId)}?${tenantQuery()}`,
  );
  if (!answer.ok) return say(`Could not revoke: ${answer.message}`, true);
  await loadGrants();
  say(`The standing approval for ${covers(g)} is revoked.`);
}

/** A `datetime-local` value (the reader's local time) `days` from now. */
function localInput(days) {
  const at = new Date(Date.now() + days * 86_400_000);
  at.setSeconds(0, 0);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

async function grantOne(event) {
  event.preventDefault();
  const text = (selector) => $(selector).value.trim();
  const number = (selector) => (text(selector) === '' ? undefined : Number(text(selector)));
  const body = {
    ...(text('#grant-class') ? { class: text('#grant-class') } : {}),
    ...(text('#grant-tool') ? { tool: text('#grant-tool') } : {}),
    ...(text('#grant-party') ? { party: text('#grant-party') } : {}),
    ...(number('#grant-max-amount') !== undefined ? { maxAmount: number('#grant-max-amount') } : {}),
    ...(number('#grant-max-total') !== undefined ? { maxTotal: number('#grant-max-total') } : {}),
    uses: number('#grant-uses'),
    expiresAt: new Date(text('#grant-expires')).toISOString(),
  };
  if (!body.class && !body.tool) return say('Name the writes it covers: a kind of write or a tool.', true);
  const answer = await call('POST', '/v1/approvals/standing', body);
  if (!answer.ok) return say(`Could not grant: ${answer.message}`, true);
  const [made] = answer.data.grants;
  await loadGrants();
  say(
    `Granted: ${made ? covers(made) : 'the standing approval'}, ${body.uses} use${body.uses === 1 ? '' : 's'}, until ${when(body.expiresAt)}.`,
  );
}

export function wireGrants() {
  $('#grant-expires').value = localInput(7);
  $('#grant-form').addEventListener('submit', (event) => void grantOne(event));
}
