// The webhook form (create on the list page, edit on a webhook's page) and
// the pieces both webhook pages share: the enabled/disabled state, the test
// button and its outcome, enable/disable and delete. Admin only: a viewer
// gets none of these.
import * as api from './api.js';
import {h, fill, truncate} from './dom.js';
import {openDialog, showNotice, showError, busy, clearMessages, secretOnceBox} from './ui.js';

// The events a webhook can subscribe to (docs/api.md, "Events").
export const EVENTS = ['job.created', 'job.started', 'job.completed', 'job.failed',
                       'job.deadlettered', 'job.retried', 'job.cancelled', 'job.quarantined',
                       'queue.paused', 'queue.resumed', 'worker.registered',
                       'worker.deregistered', 'schedule.triggered', 'workflow.completed',
                       'workflow.failed', 'dlq.autoredrive'];
// Each body format with what it is, in the order the form lists them.
export const FORMATS = [['json', 'json (the event envelope)'],
                        ['slack', 'slack (a {"text"} message)'],
                        ['discord', 'discord (a Discord channel message)'],
                        ['teams', 'teams (an Adaptive Card for a Teams workflow)']];

// "enabled" / "disabled", the reason of a disabled one in plain sight.
export function stateBadge(w) {
  return w.enabled ? h('span', {class: 'badge running'}, 'enabled')
                   : h('span', {class: 'badge hook-disabled'}, 'disabled');
}

export function disabledReason(w) {
  if (w.enabled) return null;
  return h('div', {class: 'disabled-reason', 'data-test': 'disabled-reason'},
    w.disabled_reason ? `Disabled: ${w.disabled_reason}.` : 'Disabled by an operator.',
    h('span', {class: 'consequence'}, ' No new events are sent to it.'));
}

// `webhook`: null to create, else the webhook to edit. `onSaved(result)` gets
// the server's answer (on create, with the secret). `onEdit` is called when
// the operator starts typing, so the page's poll leaves the form alone.
export function webhookForm({webhook = null, onSaved, onEdit = () => {}}) {
  const creating = webhook === null;
  const errors = {};
  const fieldError = (name) => (errors[name] = h('p', {class: 'field-error', role: 'alert',
                                                       'data-field-error': name}));
  const name = h('input', {name: 'name', value: webhook?.name ?? '', autocomplete: 'off',
                           placeholder: 'e.g. on-call alerts', maxlength: '100'});
  const url = h('input', {name: 'url', value: webhook?.url ?? '', autocomplete: 'off',
                          class: 'mono', placeholder: 'https://hooks.example.com/redrive'});
  const chosen = new Set(webhook ? webhook.events : ['job.deadlettered', 'queue.paused']);
  const known = [...EVENTS, ...(webhook?.events ?? []).filter((e) => !EVENTS.includes(e))];
  const boxes = known.map((e) => h('input', {type: 'checkbox', name: 'events', value: e,
                                             checked: chosen.has(e)}));
  const format = h('select', {name: 'format'},
    FORMATS.map(([value, label]) => h('option', {value}, label)));
  format.value = webhook?.format ?? 'json';
  const secret = h('input', {name: 'secret', type: 'password', autocomplete: 'new-password',
                             placeholder: creating ? 'empty: Redrive generates one'
                                                   : 'empty: keep the current secret'});
  const submit = h('button', {type: 'submit', class: 'primary',
                              'data-test': creating ? 'create-webhook' : 'save-webhook'},
                   creating ? 'Create webhook' : 'Save changes');

  const form = h('form', {class: 'webhook-form', 'data-test': 'webhook-form', novalidate: true},
    h('label', {class: 'field'}, h('span', {}, 'Name'), name, fieldError('name')),
    h('label', {class: 'field'}, h('span', {}, 'URL'), url,
      h('small', {class: 'muted'}, 'An absolute http:// or https:// URL; Redrive POSTs each event to it.'),
      fieldError('url')),
    h('fieldset', {class: 'field events'}, h('legend', {}, 'Events'),
      h('div', {class: 'event-choices'}, known.map((e, i) =>
        h('label', {class: 'event-choice'}, boxes[i], ' ', h('span', {class: 'mono'}, e)))),
      fieldError('events')),
    h('label', {class: 'field'}, h('span', {}, 'Format'), format, fieldError('format')),
    h('label', {class: 'field'}, h('span', {}, creating ? 'Secret (optional)' : 'New secret (optional)'),
      secret,
      h('small', {class: 'muted'}, creating
        ? 'Signs every POST (X-Redrive-Signature). Shown once, right after creating.'
        : 'Rotates the secret: later deliveries are signed with the new one.'),
      fieldError('secret')),
    fieldError(''),
    h('div', {class: 'actions'}, submit));

  form.addEventListener('input', onEdit);
  form.addEventListener('focusin', onEdit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    for (const el of Object.values(errors)) el.textContent = '';
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    const body = {name: name.value.trim(), url: url.value.trim(),
                  events: boxes.filter((b) => b.checked).map((b) => b.value),
                  format: format.value};
    if (secret.value !== '') body.secret = secret.value;
    submit.disabled = true;
    try {
      const result = creating
        ? await api.post('/outgoing-webhooks', body)
        : await api.put(`/outgoing-webhooks/${api.enc(webhook.id)}`, body);
      secret.value = '';
      clearMessages();  // the errors of earlier tries no longer apply
      onSaved(result);
    } catch (err) {
      // The server's words, next to the field it names (and at the top, as
      // every page shows errors).
      const field = err.details?.field;
      const box = errors[field] ?? errors[''];
      box.textContent = `${err.code}: ${err.message}`;
      const input = form.querySelector(`[name="${field}"]`);
      if (input) {
        input.setAttribute('aria-invalid', 'true');
        input.focus();
      }
      showError(err, creating ? 'Create webhook' : 'Save webhook');
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

// The secret of a new webhook: shown once, until dismissed.
export function secretBox(webhook, onDismiss) {
  return secretOnceBox({
    title: `Webhook “${webhook.name}” created: its signing secret`, value: webhook.secret,
    label: 'Signing secret', onDismiss,
    explain: 'Your endpoint needs it to verify X-Redrive-Signature. To replace it later, ' +
             'set a new secret on the webhook.'});
}

// "Send test": POSTs a webhook.test event now and shows what came back in
// `outcomeBox` (kept until the next test; the page's poll does not clear it).
export function testButton(w, outcomeBox, after) {
  const b = h('button', {type: 'button', class: 'small', 'data-test': 'send-test'}, 'Send test');
  b.addEventListener('click', async () => {
    fill(outcomeBox, h('p', {class: 'muted'}, `Sending a test event to ${w.name}…`));
    const r = await busy(b, 'Send test', () =>
      api.post(`/outgoing-webhooks/${api.enc(w.id)}/test`));
    if (!r) { fill(outcomeBox); return; }
    fill(outcomeBox, testOutcome(w, r));
    after();
  });
  return b;
}

function testOutcome(w, r) {
  const status = r.status_code === null || r.status_code === undefined
    ? 'no HTTP answer' : `HTTP ${r.status_code}`;
  return h('div', {class: `test-outcome ${r.success ? 'ok' : 'bad'}`, 'data-test': 'test-outcome'},
    h('strong', {}, r.success ? 'Test delivered' : 'Test failed'),
    ` to ${w.name}: ${status} in ${r.duration_ms} ms`,
    r.error && r.error !== status ? [' — ', h('span', {class: 'error-text'}, truncate(r.error, 300))]
                                  : null,
    r.success ? '. The endpoint works.' : '. Alerts sent to this endpoint would not arrive.');
}

export function enableButton(w, after) {
  const b = h('button', {type: 'button', class: w.enabled ? 'small' : 'small primary',
                         'data-test': w.enabled ? 'disable' : 'enable'},
              w.enabled ? 'Disable' : 'Enable');
  b.addEventListener('click', async () => {
    if (w.enabled) {
      const ok = await openDialog({title: `Disable webhook “${w.name}”?`, danger: true,
        body: ['It gets no new events until it is enabled again; events in between are never ' +
               'sent. Its pending deliveries wait.'],
        confirmLabel: 'Disable webhook'});
      if (!ok) return;
    }
    await busy(b, w.enabled ? 'Disable' : 'Enable', async () => {
      await api.put(`/outgoing-webhooks/${api.enc(w.id)}`, {enabled: !w.enabled});
      showNotice(w.enabled ? `Webhook ${w.name} disabled.`
        : `Webhook ${w.name} enabled: failures reset, waiting deliveries go out again.`);
    });
    after();
  });
  return b;
}

export function deleteButton(w, after) {
  const b = h('button', {type: 'button', class: 'small danger', 'data-test': 'delete'}, 'Delete');
  b.addEventListener('click', async () => {
    const ok = await openDialog({title: `Delete webhook “${w.name}”?`, danger: true,
      body: [h('p', {}, 'URL: ', h('code', {}, w.url)),
             'The webhook and all its deliveries, pending ones included, are deleted. ' +
             'This cannot be undone.'],
      confirmLabel: `Delete ${truncate(w.name, 40)}`});
    if (!ok) return;
    const done = await busy(b, 'Delete', async () => {
      await api.del(`/outgoing-webhooks/${api.enc(w.id)}`);
      showNotice(`Webhook ${w.name} deleted.`);
      return true;
    });
    if (done) after();
  });
  return b;
}

export const refreshAfter = (refresh) => () => refresh().catch((e) => showError(e, 'Refresh'));
