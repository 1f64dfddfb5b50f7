// The users and keys of an organisation, through the admin API (/v1/admin/users): list them, add a
// user with roles per entity, issue a key (shown once, here, and nowhere after), revoke a key,
// disable a user. The admin key stays in this tab's session storage.
import { $, el, errorText } from './dom.js';

const settings = {
  adminKey: sessionStorage.getItem('munim.adminKey') ?? '',
  orgId: localStorage.getItem('munim.orgId') ?? 'demo',
};
/** The users whose keys are open, so a reload of the list keeps them open. */
const open = new Set();

const headers = (json = false) => ({
  ...(json ? { 'content-type': 'application/json' } : {}),
  authorization: `Bearer ${settings.adminKey}`,
});
const org = () => new URLSearchParams({ orgId: settings.orgId }).toString();
const userPath = (userId, rest = '') => `/v1/admin/users/${encodeURIComponent(userId)}${rest}`;

function say(text, error = false) {
  const status = $('#status');
  status.textContent = text;
  status.classList.toggle('error', error);
  status.setAttribute('role', error ? 'alert' : 'status');
}

/** Calls the admin API; the JSON answer, or null after saying what went wrong. */
async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  }).catch((error) => ({ ok: false, status: 0, statusText: error.message, json: async () => ({}) }));
  if (!response.ok) {
    say(`Could not ${method === 'GET' ? 'load' : 'save'}: ${await errorText(response)}`, true);
    return null;
  }
  return response.status === 204 ? {} : response.json();
}

// ---- users ---------------------------------------------------------------------------------

async function loadUsers() {
  if (!settings.adminKey) {
    say('Give an admin key and an organisation to see its users.');
    return;
  }
  const answer = await call('GET', `/v1/admin/users?${org()}`);
  if (!answer) return;
  say(`${answer.users.length} user${answer.users.length === 1 ? '' : 's'} in ${settings.orgId}.`);
  $('#no-users').hidden = answer.users.length > 0;
  const rows = [];
  for (const user of answer.users) {
    rows.push(userRow(user));
    if (open.has(user.userId)) rows.push(await keysRow(user));
  }
  $('#users tbody').replaceChildren(...rows);
}

function userRow(user) {
  const roles = el(
    'ul',
    { className: 'roles' },
    ...user.roles.map((r) => el('li', { textContent: `${r.role} of ${r.entityId}` })),
  );
  const keys = el('button', { type: 'button', textContent: open.has(user.userId) ? 'Hide keys' : 'Keys' });
  keys.setAttribute('aria-expanded', String(open.has(user.userId)));
  keys.addEventListener('click', () => {
    if (open.has(user.userId)) open.delete(user.userId);
    else open.add(user.userId);
    void loadUsers();
  });
  const actions = el('div', { className: 'actions' }, keys);
  if (!user.disabled) {
    const disable = el('button', { type: 'button', className: 'danger', textContent: 'Disable' });
    disable.addEventListener('click', () => void disableUser(user));
    actions.append(disable);
  }
  const row = el(
    'tr',
    {},
    el('th', { scope: 'row', textContent: user.name }),
    el('td', { textContent: [user.email, user.phone].filter(Boolean).join(' · ') }),
    el('td', {}, roles),
    el('td', { textContent: user.disabled ? 'disabled' : 'active' }),
    el('td', {}, actions),
  );
  row.dataset.userId = user.userId;
  row.dataset.name = user.name;
  return row;
}

async function disableUser(user) {
  if (!confirm(`Disable ${user.name}? Their keys stop working at once.`)) return;
  const done = await call('POST', userPath(user.userId, '/disable'), { orgId: settings.orgId });
  if (!done) return;
  say(`${user.name} is disabled.`);
  void loadUsers();
}

// ---- keys ----------------------------------------------------------------------------------

async function keysRow(user) {
  const answer = await call('GET', `${userPath(user.userId, '/keys')}?${org()}`);
  const keys = answer?.keys ?? [];
  const list = el(
    'ul',
    { className: 'keys' },
    ...keys.map((key) => {
      const state = key.revokedAt
        ? `revoked ${new Date(key.revokedAt).toLocaleString()}`
        : `last used ${key.lastUsedAt ? new Date(key.lastUsedAt).toLocaleString() : 'never'}`;
      const item = el(
        'li',
        {},
        el('code', { textContent: `${key.prefix}…` }),
        ` ${key.label ?? 'no label'} · ${key.kind === 'program' ? "a program's" : "a person's"} · made ${new Date(key.createdAt).toLocaleString()} · ${state} `,
      );
      item.dataset.keyId = key.keyId;
      if (!key.revokedAt) {
        const revoke = el('button', { type: 'button', className: 'danger', textContent: 'Revoke' });
        revoke.setAttribute('aria-label', `Revoke ${key.label ?? key.prefix}`);
        revoke.addEventListener('click', () => void revokeKey(user, key));
        item.append(revoke);
      }
      return item;
    }),
  );
  const label = el('input', { maxLength: 100, placeholder: 'e.g. laptop, billing bot' });
  // A program's key never confirms its own writes (unless the user holds automation): they wait for a person.
  const kind = el(
    'select',
    {},
    el('option', { value: 'person', textContent: 'a person (this user, signing in)' }),
    el('option', { value: 'program', textContent: 'a program (its writes wait for a person)' }),
  );
  const issue = el(
    'form',
    { className: 'issue' },
    el('label', {}, 'Label ', label),
    el('label', {}, 'For ', kind),
    el('button', { type: 'submit', textContent: 'Issue a key' }),
  );
  issue.addEventListener('submit', (event) => {
    event.preventDefault();
    void issueKey(user, label.value.trim(), kind.value);
  });
  const cell = el(
    'td',
    { colSpan: 5 },
    keys.length > 0 ? list : el('p', { className: 'muted', textContent: 'No keys yet.' }),
    // A disabled user's keys do not work: none is issued to them.
    user.disabled ? '' : issue,
  );
  const row = el('tr', { className: 'keys-row' }, cell);
  row.dataset.keysOf = user.userId;
  return row;
}

async function issueKey(user, label, kind) {
  const made = await call('POST', userPath(user.userId, '/keys'), {
    orgId: settings.orgId,
    kind,
    ...(label ? { label } : {}),
  });
  if (!made) return;
  // Shown here once; not kept in the page's state, storage or the list.
  $('#issued-for').textContent = user.name;
  $('#issued-key').textContent = made.key;
  $('#issued').hidden = false;
  say(`A key was issued to ${user.name}: copy it now, it is not shown again.`);
  await loadUsers();
  $('#copy-key').focus();
}

async function revokeKey(user, key) {
  if (!confirm(`Revoke the key ${key.prefix}… of ${user.name}? Programs using it stop at once.`)) return;
  const done = await call(
    'DELETE',
    `${userPath(user.userId, `/keys/${encodeURIComponent(key.keyId)}`)}?${org()}`,
  );
  if (!done) return;
  say(`The key ${key.prefix}… of ${user.name} is revoked.`);
  void loadUsers();
}

function hideIssued() {
  $('#issued-key').textContent = '';
  $('#issued').hidden = true;
}

// ---- a new user ----------------------------------------------------------------------------

function addRoleRow(entityId = '', role = 'viewer') {
  const row = $('#role-row').content.firstElementChild.cloneNode(true);
  row.querySelector('.role-entity').value = entityId;
  row.querySelector('.role-name').value = role;
  row.querySelector('.remove-role').addEventListener('click', () => row.remove());
  $('#role-rows').append(row);
  return row;
}

async function createUser(event) {
  event.preventDefault();
  const value = (selector) => $(selector).value.trim();
  const roles = [...$('#role-rows').children].map((row) => ({
    entityId: row.querySelector('.role-entity').value.trim(),
    role: row.querySelector('.role-name').value,
  }));
  const made = await call('POST', '/v1/admin/users', {
    orgId: settings.orgId,
    name: value('#user-name'),
    ...(value('#user-email') ? { email: value('#user-email') } : {}),
    ...(value('#user-phone') ? { phone: value('#user-phone') } : {}),
    roles,
  });
  if (!made) return;
  $('#new-user').reset();
  $('#role-rows').replaceChildren();
  addRoleRow();
  say(`${made.name} was added.`);
  void loadUsers();
}

// ---- wiring --------------------------------------------------------------------------------

$('#admin-key').value = settings.adminKey;
$('#org-id').value = settings.orgId;
$('#admin-form').addEventListener('submit', (event) => {
  event.preventDefault();
  settings.adminKey = $('#admin-key').value.trim();
  settings.orgId = $('#org-id').value.trim();
  sessionStorage.setItem('munim.adminKey', settings.adminKey);
  localStorage.setItem('munim.orgId', settings.orgId);
  open.clear();
  hideIssued();
  void loadUsers();
});
$('#add-role').addEventListener('click', () => addRoleRow().querySelector('.role-entity').focus());
$('#new-user').addEventListener('submit', (event) => void createUser(event));
$('#copy-key').addEventListener('click', () => {
  void navigator.clipboard?.writeText($('#issued-key').textContent).then(
    () => say('The key is copied.'),
    () => say('Select the key and copy it.', true),
  );
});
$('#hide-key').addEventListener('click', hideIssued);
addRoleRow();
void loadUsers();
