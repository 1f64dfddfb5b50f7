// An entity's closed period and business settings, through the admin API
// (/v1/admin/entities/:entityId/lock-date and /business-context): see the lock date and close the
// books up to a day, or reopen them; see and change the currency, locale, financial year, country,
// state and GSTIN. Only the changed settings are sent. The key stays in this tab's session storage.
import { $ } from './dom.js';

const settings = {
  adminKey: sessionStorage.getItem('munim.adminKey') ?? '',
  entityId: localStorage.getItem('munim.entityId') ?? 'demo',
  orgId: localStorage.getItem('munim.orgId') ?? 'demo',
};

/** The form's fields, by the API's names. */
const FIELDS = {
  companyName: '#company-name',
  countryCode: '#country-code',
  currency: '#currency',
  locale: '#locale',
  fyStartMonth: '#fy-start-month',
  timezone: '#timezone',
  state: '#state',
  gstin: '#gstin',
};
/** The settings as last loaded: what a field is compared with to know it changed. */
let loaded = null;

const path = (what) =>
  `/v1/admin/entities/${encodeURIComponent(settings.entityId)}/${what}?${new URLSearchParams({ orgId: settings.orgId })}`;

function say(text, error = false) {
  const status = $('#status');
  status.textContent = text;
  status.classList.toggle('error', error);
  status.setAttribute('role', error ? 'alert' : 'status');
}

/** Calls the admin API; the JSON answer, or null after saying what went wrong (and marking the field). */
async function call(method, what, body) {
  for (const selector of Object.values(FIELDS)) $(selector).removeAttribute('aria-invalid');
  $('#lock-date').removeAttribute('aria-invalid');
  const response = await fetch(path(what), {
    method,
    headers: {
      authorization: `Bearer ${settings.adminKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).catch((error) => ({ ok: false, status: 0, statusText: error.message, json: async () => ({}) }));
  if (response.ok) return response.json();
  const error = (await response.json().catch(() => ({}))).error ?? {};
  const field = FIELDS[error.field] ?? (error.field === 'lockDate' ? '#lock-date' : null);
  if (field) $(field).setAttribute('aria-invalid', 'true');
  say(`Could not ${method === 'GET' ? 'load' : 'save'}: ${error.message ?? response.statusText}`, true);
  return null;
}

function showLock(lock) {
  $('#lock-now').textContent = lock.lockDate
    ? `The books are closed up to ${lock.lockDateText}.`
    : 'No period is closed: changes of any date may be made.';
  $('#lock-date').value = lock.lockDate ?? '';
  $('#reopen').hidden = !lock.lockDate;
}

function showContext(context) {
  loaded = context;
  for (const [name, selector] of Object.entries(FIELDS)) $(selector).value = context[name] ?? '';
  $('#context-now').textContent =
    `${context.configured ? 'Settings of this entity' : 'Not set up yet: the defaults'}: ${context.countryName}, ` +
    `${context.currency}, dates as ${context.dateFormat}, ${context.taxName}, ${context.timezone}.`;
}

async function load() {
  if (!settings.adminKey) {
    say('Give a key, an entity and an organisation to see their settings.');
    return;
  }
  const [lock, context] = await Promise.all([call('GET', 'lock-date'), call('GET', 'business-context')]);
  if (!lock || !context) return;
  showLock(lock);
  showContext(context);
  say(`Settings of ${settings.entityId} in ${settings.orgId}.`);
}

async function saveLock(lockDate) {
  const lock = await call('PUT', 'lock-date', { lockDate });
  if (!lock) return;
  showLock(lock);
  say(lock.lockDate ? `The books are now closed up to ${lock.lockDateText}.` : 'The books are open again.');
}

/** Only what changed: an emptied field clears the entity's own setting (the country's applies). */
function changes() {
  const body = {};
  for (const [name, selector] of Object.entries(FIELDS)) {
    const raw = $(selector).value.trim();
    const value = name === 'fyStartMonth' ? Number(raw) : raw || null;
    if (value === (loaded?.[name] ?? null)) continue;
    if (name === 'countryCode' && value === null) continue;
    body[name] = value;
  }
  return body;
}

async function saveContext() {
  const body = changes();
  if (Object.keys(body).length === 0) {
    say('Nothing changed.');
    return;
  }
  const context = await call('PUT', 'business-context', body);
  if (!context) return;
  showContext(context);
  // The lock date reads in the business's own words, which a new locale changes.
  const lock = await call('GET', 'lock-date');
  if (lock) showLock(lock);
  say(`Saved: ${Object.keys(body).join(', ')}.`);
}

$('#admin-key').value = settings.adminKey;
$('#entity-id').value = settings.entityId;
$('#org-id').value = settings.orgId;
$('#admin-form').addEventListener('submit', (event) => {
  event.preventDefault();
  settings.adminKey = $('#admin-key').value.trim();
  settings.entityId = $('#entity-id').value.trim();
  settings.orgId = $('#org-id').value.trim();
  sessionStorage.setItem('munim.adminKey', settings.adminKey);
  localStorage.setItem('munim.entityId', settings.entityId);
  localStorage.setItem('munim.orgId', settings.orgId);
  void load();
});
$('#lock-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void saveLock($('#lock-date').value);
});
$('#reopen').addEventListener('click', () => {
  if (confirm('Reopen the books? Changes of any date may be made again.')) void saveLock(null);
});
$('#context-form').addEventListener('submit', (event) => {
  event.preventDefault();
  void saveContext();
});
void load();
