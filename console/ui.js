// Messages for the operator (errors in the server's own words) and modal
// dialogs that say exactly what an action will do before it is done.
import {h, clear} from './dom.js';

const messages = () => document.getElementById('messages');

export function showError(err, context) {
  const code = err.code || 'ERROR';
  const details = err.details && Object.keys(err.details).length
    ? h('code', {class: 'details'}, JSON.stringify(err.details)) : null;
  addMessage('error', [context ? `${context}: ` : '', h('strong', {}, code), ' ',
                       err.message || String(err), details]);
}

export function showNotice(text) { addMessage('notice', [text]); }

export function clearMessages() { clear(messages()); }

function addMessage(kind, content) {
  const box = h('div', {class: `message ${kind}`, role: kind === 'error' ? 'alert' : 'status'},
                h('span', {class: 'message-text'}, content),
                h('button', {type: 'button', class: 'link', 'aria-label': 'Dismiss',
                             onclick: (e) => e.target.closest('.message').remove()}, '×'));
  // The same error from every 5 s refresh is shown once, not stacked.
  const text = box.textContent;
  if ([...messages().children].some((m) => m.textContent === text)) return;
  messages().appendChild(box);
  // Notices fade on their own; errors stay until dismissed or the page changes.
  if (kind === 'notice') setTimeout(() => box.remove(), 8000);
}

// The optional "why" of a change, which the server keeps in its audit log
// (sent as X-Redrive-Reason; at most 500 bytes there).
const REASON_FIELD = {name: 'reason', label: 'Reason (optional, kept in the audit log)',
                      placeholder: 'e.g. gateway fixed, INC-4411', maxlength: '200'};

// Opens the modal. `fields`: [{name, label, type, value, placeholder, hint}];
// type 'select' takes `options`: [[value, label], ...].
// `typeToConfirm`: the text the operator must type before confirming.
// `reason`: adds the optional Reason field (values.reason).
// Resolves to the field values ({} if none) on confirm, null on cancel.
export function openDialog({title, body = [], fields = [], confirmLabel = 'Confirm',
                            danger = false, typeToConfirm = null, validate = null,
                            reason = false}) {
  if (reason) fields = [...fields, REASON_FIELD];
  const dialog = document.getElementById('dialog');
  clear(dialog);
  return new Promise((resolve) => {
    const inputs = {};
    const error = h('p', {class: 'field-error', role: 'alert'});
    const confirm = h('button', {type: 'submit', class: danger ? 'danger' : 'primary',
                                 'data-test': 'dialog-confirm'}, confirmLabel);
    const form = h('form', {method: 'dialog'},
      h('h2', {}, title),
      body.map((b) => (b instanceof Node ? b : h('p', {}, b))),
      fields.map((f) => {
        if (f.type === 'select') {
          inputs[f.name] = h('select', {name: f.name, 'data-test': `field-${f.name}`},
            (f.options || []).map(([value, label]) => h('option', {value}, label)));
          inputs[f.name].value = f.value ?? '';
        } else {
          inputs[f.name] = h('input', {name: f.name, type: f.type || 'text',
                                       value: f.value ?? '', placeholder: f.placeholder,
                                       step: f.step, min: f.min, maxlength: f.maxlength,
                                       autocomplete: 'off', 'data-test': `field-${f.name}`});
        }
        return h('label', {class: 'field'}, h('span', {}, f.label), inputs[f.name],
                 f.hint ? h('small', {class: 'muted'}, f.hint) : null);
      }),
      typeToConfirm !== null ? h('label', {class: 'field'},
        h('span', {}, ['Type ', h('code', {}, typeToConfirm), ' to confirm']),
        inputs.__confirm = h('input', {name: '__confirm', autocomplete: 'off',
                                       'data-test': 'type-to-confirm'})) : null,
      error,
      h('div', {class: 'dialog-buttons'},
        h('button', {type: 'button', value: 'cancel', onclick: () => finish(null)}, 'Cancel'),
        confirm));
    const values = () => Object.fromEntries(
      Object.entries(inputs).filter(([k]) => k !== '__confirm').map(([k, el]) => [k, el.value]));
    const check = () => {
      let problem = validate ? validate(values()) : null;
      if (!problem && typeToConfirm !== null && inputs.__confirm.value !== typeToConfirm) {
        problem = '';
      }
      error.textContent = problem || '';
      confirm.disabled = problem !== null && problem !== undefined;
    };
    form.addEventListener('input', check);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      check();
      if (!confirm.disabled) finish(values());
    });
    dialog.addEventListener('cancel', () => finish(null), {once: true});
    let done = false;
    function finish(result) {
      if (done) return;
      done = true;
      dialog.close();
      resolve(result);
    }
    dialog.appendChild(form);
    check();
    dialog.showModal();
    const first = form.querySelector('input');
    if (first) first.focus(); else confirm.focus();
  });
}

export function isDialogOpen() { return document.getElementById('dialog').open; }

// A secret the server shows once (a webhook's signing secret, an API key):
// in plain sight with a Copy button until the operator dismisses it.
// `what` names it ("Secret", "Key") in the notices; `explain` says what it is for.
export function secretOnceBox({title, value, label, what = 'Secret', explain = [], onDismiss}) {
  const input = h('input', {readonly: true, class: 'mono secret-value', value,
                            'data-test': 'secret-value', 'aria-label': label});
  input.addEventListener('focus', () => input.select());
  const copy = h('button', {type: 'button', class: 'small'}, 'Copy');
  copy.addEventListener('click', async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(value);
      showNotice(`${what} copied to the clipboard.`);
    } catch {
      showNotice(`The browser refused the clipboard: the ${what.toLowerCase()} is selected, ` +
                 'copy it with Ctrl+C.');
    }
  });
  return h('section', {class: 'card secret-once', 'data-test': 'secret-once', role: 'status'},
    h('h2', {}, title),
    h('p', {}, h('strong', {}, 'Copy it now, it will not be shown again. '), explain),
    h('div', {class: 'actions'}, input, copy,
      h('button', {type: 'button', class: 'primary', 'data-test': 'secret-dismiss',
                   onclick: onDismiss}, 'I have stored it')));
}

// Runs an action with its button disabled meanwhile; reports errors.
export async function busy(button, what, fn) {
  button.disabled = true;
  try {
    return await fn();
  } catch (err) {
    showError(err, what);
    return undefined;
  } finally {
    button.disabled = false;
  }
}
