// A person's access to the tenant API from a console page other than the chat: the same key,
// entity and organisation the chat keeps (the key in this tab's session storage, the rest
// remembered), the calls carrying them, and the page's status line.
import { $, errorText } from './dom.js';

export const access = {
  apiKey: sessionStorage.getItem('munim.apiKey') ?? '',
  entityId: localStorage.getItem('munim.entityId') ?? 'demo',
  orgId: localStorage.getItem('munim.orgId') ?? 'demo',
};

/** Keeps new access for this tab (the key) and for later visits (entity and organisation). */
export function saveAccess(apiKey, entityId, orgId) {
  Object.assign(access, { apiKey, entityId, orgId });
  sessionStorage.setItem('munim.apiKey', apiKey);
  localStorage.setItem('munim.entityId', entityId);
  localStorage.setItem('munim.orgId', orgId);
}

/** The tenant as a query string, for the calls without a body. */
export const tenantQuery = (extra = {}) =>
  new URLSearchParams({ ...extra, entityId: access.entityId, orgId: access.orgId }).toString();

/** How many things the status line has said: what an answer that comes late checks against. */
let said = 0;

/** Says something on the page's status line; an error is announced at once. */
export function say(text, error = false) {
  said += 1;
  const status = $('#status');
  status.textContent = text;
  status.classList.toggle('error', error);
  status.setAttribute('role', error ? 'alert' : 'status');
}

/**
 * A `say` for what a load will report when its answer comes: it stays quiet when the page has said
 * anything since (a slow list must not hide the refusal or the decision told meanwhile).
 */
export function sayUnlessSaid() {
  const at = said;
  return (text, error = false) => {
    if (at === said) say(text, error);
  };
}

/**
 * Calls the tenant API as this person: `{ ok: true, data }`, or `{ ok: false, status, message }`
 * with the gateway's words for what went wrong. A body carries the tenant too.
 */
export async function call(method, path, body) {
  const headers = {
    ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(access.apiKey ? { authorization: `Bearer ${access.apiKey}` } : {}),
  };
  try {
    const response = await fetch(path, {
      method,
      headers,
      ...(body !== undefined
        ? { body: JSON.stringify({ ...body, entityId: access.entityId, orgId: access.orgId }) }
        : {}),
    });
    if (!response.ok) return { ok: false, status: response.status, message: await errorText(response) };
    return { ok: true, data: response.status === 204 ? {} : await response.json() };
  } catch (error) {
    return { ok: false, status: 0, message: `the gateway could not be reached (${error.message})` };
  }
}

/** A moment in the reader's own date and time format. */
export const when = (iso) => new Date(iso).toLocaleString();

/** How far a moment is from now, in words ("in 3 hours", "5 minutes ago"). */
export function fromNow(iso) {
  const seconds = (Date.parse(iso) - Date.now()) / 1000;
  const units = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  const words = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  for (const [unit, size] of units)
    if (Math.abs(seconds) >= size) return words.format(Math.round(seconds / size), unit);
  return words.format(Math.round(seconds), 'second');
}

/** A person as the inbox names them: their user id, or the business's owner (no user). */
export const person = (userId) => userId ?? 'the owner';

/** A list of words joined as a reader says it: "a", "a or b", "a, b or c". */
export function anyOf(words, last = 'or') {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`;
}
