// API keys (admin only; GET /api/v1/api-keys answers a viewer 403): every
// stored key with its role, queue scope, use and expiry. An admin creates a
// key, whose secret is shown once, and revokes one. Bootstrap keys (given to
// `redrive serve`) are not stored, so not listed here.
import * as api from './api.js';
import {h, fill, time, relativeTime} from './dom.js';
import {openDialog, showNotice, showError, busy, clearMessages, secretOnceBox} from './ui.js';
import {parseDuration} from './durations.js';

const ROLES = [['worker', 'worker'], ['viewer', 'viewer'], ['admin', 'admin']];

export function mountKeys(main, ctx) {
  const secretArea = h('div', {});
  const tableBox = h('section', {class: 'card'}, h('p', {class: 'muted'}, 'Loading…'));
  // Only an admin gets here from the menu; another role opening the address
  // sees the server's 403 (app.js) instead of a form.
  const formBox = ctx.canAct ? h('section', {class: 'card', 'data-test': 'new-key'}) : null;
  // On a server without keys, the first key created ends the no-key mode:
  // every later request needs a key, the console's too. The list is then no
  // longer refreshed, so the secret stays in sight until it is dismissed.
  let waitingForSignIn = false;
  let shown = [];
  fill(main, h('h1', {}, 'API keys'),
       h('p', {class: 'muted'}, 'Keys kept in the database. Keys given to redrive serve ' +
         '(--api-key, REDRIVE_API_KEYS) are not listed here and cannot be revoked here.'),
       ctx.authRequired ? null : h('p', {class: 'incident', 'data-test': 'no-key-mode'},
         'This server has no keys: anyone who reaches it acts as admin. Creating the first ' +
         'key ends that: from then on every request needs a key, this console\'s too. Create ' +
         'an admin key first and keep its secret to sign in with.'),
       secretArea, tableBox, formBox);
  if (formBox) fill(formBox, h('h2', {}, 'New key'), keyForm(onCreated));

  function onCreated(created) {
    const first = !ctx.authRequired;
    if (first) waitingForSignIn = true;
    fill(secretArea, keySecretBox(created, first, () => {
      fill(secretArea);
      if (first) {
        ctx.requireKey('This server now requires an API key. Sign in with an admin or ' +
                       'viewer key, such as the one just created.');
      }
    }));
    secretArea.scrollIntoView({block: 'start'});
    if (first) {
      shown = [created, ...shown];
      fill(tableBox, h('h2', {}, 'Keys'), keyTable(shown, refresh));
    } else {
      refresh().catch((e) => showError(e, 'Refresh'));
    }
  }

  async function refresh() {
    if (waitingForSignIn) return;
    shown = await api.get('/api-keys');
    fill(tableBox, h('h2', {}, 'Keys'), keyTable(shown, refresh));
  }
  return {refresh};
}

const article = (role) => (role === 'admin' ? 'An' : 'A');

// active, revoked or expired.
function keyState(k, now = Date.now()) {
  if (!k.is_active) return 'revoked';
  if (k.expires_at && Date.parse(k.expires_at) <= now) return 'expired';
  return 'active';
}

const COLUMNS = ['Name', 'Role', 'Queues', 'Prefix', 'Created', 'Last used', 'Expires', 'State'];

function keyTable(keys, refresh) {
  if (keys.length === 0) return h('p', {class: 'empty'}, 'No stored keys yet. Create one below.');
  return h('table', {class: 'grid', 'data-test': 'keys'},
    h('thead', {}, h('tr', {}, COLUMNS.map((t) => h('th', {}, t)), h('th', {}, ''))),
    h('tbody', {}, keys.map((k) => {
      const state = keyState(k);
      return h('tr', {'data-id': k.id, 'data-name': k.name, 'data-state': state,
                      class: state === 'active' ? '' : 'row-revoked'},
        h('td', {class: 'key-name'}, k.name),
        h('td', {}, h('span', {class: `badge role-${k.role}`}, k.role)),
        h('td', {}, k.queues.length === 0 ? h('span', {class: 'muted'}, 'every queue')
                                          : k.queues.map((q) => h('span', {class: 'tag'}, q))),
        h('td', {class: 'mono'}, `${k.key_prefix}…`),
        h('td', {}, time(k.created_at)),
        h('td', {}, k.last_used ? time(k.last_used) : h('span', {class: 'muted'}, 'never')),
        h('td', {}, k.expires_at ? time(k.expires_at) : h('span', {class: 'muted'}, 'never')),
        h('td', {}, h('span', {class: `badge key-${state}`, 'data-test': 'key-state'}, state)),
        h('td', {class: 'row-actions'}, k.is_active ? revokeButton(k, refresh) : null));
    })));
}

function revokeButton(k, refresh) {
  const b = h('button', {type: 'button', class: 'small danger', 'data-test': 'revoke'}, 'Revoke');
  b.addEventListener('click', async () => {
    const values = await openDialog({title: `Revoke key “${k.name}”?`, danger: true,
      body: [h('p', {}, `${article(k.role)} ${k.role} key, `,
               h('code', {}, `${k.key_prefix}…`), '.'),
             'Every request with it is refused (401) from now on: at once on this server, ' +
             'within about a second on the others sharing its database. The key stays ' +
             'listed as revoked. If this console uses it, it asks for another key.'],
      confirmLabel: 'Revoke key', reason: true});
    if (!values) return;
    const done = await busy(b, 'Revoke', async () => {
      await api.del(`/api-keys/${api.enc(k.id)}`, {reason: values.reason});
      showNotice(`Key ${k.name} revoked.`);
      return true;
    });
    if (done) await refresh().catch((e) => showError(e, 'Refresh'));
  });
  return b;
}

// The create form: name, role, the queues a worker key may use, an expiry
// typed as a duration from now (as `redrive keys create --expires-in`).
function keyForm(onCreated) {
  const errors = {};
  const fieldError = (name) => (errors[name] = h('p', {class: 'field-error', role: 'alert',
                                                       'data-field-error': name}));
  const name = h('input', {name: 'name', autocomplete: 'off', maxlength: '100',
                           placeholder: 'e.g. mailer, oncall-alice'});
  const role = h('select', {name: 'role'},
                 ROLES.map(([v, label]) => h('option', {value: v}, label)));
  const queues = h('input', {name: 'queues', autocomplete: 'off', class: 'mono',
                             placeholder: 'empty: every queue; e.g. emails, reports'});
  const expires = h('input', {name: 'expires_in', autocomplete: 'off',
                              placeholder: 'empty: never; e.g. 90d, 12h'});
  const submit = h('button', {type: 'submit', class: 'primary', 'data-test': 'create-key'},
                   'Create key');
  const inputs = {name, role, queues, expires_at: expires};
  const syncQueues = () => {
    // Only a worker key has a queue scope (the server refuses queues on another role).
    queues.disabled = role.value !== 'worker';
  };
  role.addEventListener('change', syncQueues);
  syncQueues();

  const form = h('form', {class: 'entity-form key-form', 'data-test': 'key-form', novalidate: true},
    h('div', {class: 'field-row'},
      h('label', {class: 'field'}, h('span', {}, 'Name'), name,
        h('small', {class: 'muted'}, 'Who the key is for: the audit log names its changes so.'),
        fieldError('name')),
      h('label', {class: 'field'}, h('span', {}, 'Role'), role,
        h('small', {class: 'muted'}, 'worker: enqueue and run jobs; viewer: read the console ' +
                                     'without payloads; admin: everything, keys included.'),
        fieldError('role'))),
    h('div', {class: 'field-row'},
      h('label', {class: 'field'}, h('span', {}, 'Queues (worker keys, optional)'), queues,
        h('small', {class: 'muted'}, 'Comma-separated: the only queues it may enqueue into, ' +
                                     'claim from and read jobs of.'),
        fieldError('queues')),
      h('label', {class: 'field'}, h('span', {}, 'Expires in (optional)'), expires,
        h('small', {class: 'muted'}, 'A duration from now: 30d, 12h, 1h30m.'),
        fieldError('expires_at'))),
    fieldError(''),
    h('div', {class: 'actions'}, submit));

  const showProblem = (field, text) => {
    // "queues[1]" is the queues field.
    const base = field ? field.replace(/\[\d+\]$/, '') : '';
    (errors[base] ?? errors['']).textContent = text;
    const el = inputs[base];
    if (el) {
      el.setAttribute('aria-invalid', 'true');
      el.focus();
    }
  };

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    for (const el of Object.values(errors)) el.textContent = '';
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    const body = {name: name.value.trim(), role: role.value};
    if (role.value === 'worker') {
      const list = queues.value.split(',').map((q) => q.trim()).filter(Boolean);
      if (list.length) body.queues = list;
    }
    if (expires.value.trim() !== '') {
      const ms = parseDuration(expires.value);
      if (ms === null || ms === 0) {
        showProblem('expires_at', `Expires in: “${expires.value.trim()}” is not a duration ` +
                                  '(e.g. 90d, 12h, 1h30m).');
        return;
      }
      body.expires_at = new Date(Date.now() + ms).toISOString();
    }
    submit.disabled = true;
    try {
      const created = await api.post('/api-keys', body);
      clearMessages();  // the errors of earlier tries no longer apply
      form.reset();
      syncQueues();
      onCreated(created);
    } catch (err) {
      showProblem(err.details?.field, `${err.code}: ${err.message}`);
      showError(err, 'Create key');
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

// The new key's secret, shown once. `first`: it ended the no-key mode.
function keySecretBox(k, first, onDismiss) {
  const scope = k.queues.length ? ` on queues ${k.queues.join(', ')}` : '';
  const expiry = k.expires_at
    ? `, expiring ${relativeTime(k.expires_at)} (${k.expires_at})` : ', never expiring';
  if (k.key === null || k.key === undefined) {
    // A replayed create (the same Idempotency-Key): the server keeps no secret.
    return h('section', {class: 'card secret-once', 'data-test': 'secret-once', role: 'status'},
      h('h2', {}, `Key “${k.name}” created`),
      h('p', {}, `The server did not send its secret again (${k.key_note ?? 'shown only once'}). ` +
                 'Revoke this key and create a new one.'),
      h('button', {type: 'button', 'data-test': 'secret-dismiss', onclick: onDismiss}, 'Close'));
  }
  return secretOnceBox({
    title: `Key “${k.name}” created: its secret`, value: k.key, label: 'API key secret',
    what: 'Key', onDismiss,
    explain: [`${article(k.role)} ${k.role} key${scope}${expiry}. Send it as `,
              h('code', {}, 'Authorization: Bearer <key>'),
              '. The server keeps only its hash; lost, it cannot be recovered: revoke it and ' +
              'create another.',
              first ? h('strong', {}, ' This server now requires a key: when you close this, ' +
                                      'the console asks for one.') : null]});
}

