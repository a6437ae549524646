// A bulk operation's live progress (POST /api/v1/operations runs it on the
// server, in batches): a progress bar, "retried 500 of 1,200", an ETA and a
// Cancel button, read from GET /api/v1/operations/{id} every second until it
// finishes. Used by the DLQ's "Retry all matching…" and "Purge…".
import * as api from './api.js';
import {h} from './dom.js';
import {showNotice} from './ui.js';

const POLL_MS = 1000;
const FINISHED = new Set(['completed', 'cancelled', 'failed']);

function line(op, verb) {
  let text = `${op.state}: ${verb} ${op.done.toLocaleString('en-US')} of ` +
             `${op.matched.toLocaleString('en-US')}`;
  if (op.failed > 0) text += ` (${op.failed} failed)`;
  if (op.eta_seconds !== null && op.eta_seconds !== undefined) {
    text += `, about ${op.eta_seconds}s left`;
  }
  return text;
}

// Shows `op` (as POST /operations answered it) in `container` and follows it;
// resolves with the finished operation.
export function followOperation(container, op, verb) {
  const bar = h('progress', {max: String(Math.max(op.matched, 1)), value: '0',
                             'data-test': 'operation-bar'});
  const text = h('span', {'data-test': 'operation-text'}, line(op, verb));
  const cancel = h('button', {type: 'button', class: 'danger', 'data-test': 'operation-cancel'},
                   'Cancel');
  const panel = h('div', {class: 'operation-progress', 'data-test': 'operation-progress',
                          'data-operation-id': op.id}, bar, ' ', text, ' ', cancel);
  container.append(panel);
  cancel.addEventListener('click', async () => {
    cancel.disabled = true;
    try {
      await api.post(`/operations/${api.enc(op.id)}/cancel`, {});
    } catch (e) {
      if (e.status !== 409) showNotice(e.message, 'error');  // 409: it had just finished
    }
  });
  return new Promise((resolve) => {
    const poll = async () => {
      let now = op;
      try {
        now = await api.get(`/operations/${api.enc(op.id)}`);
      } catch (e) {
        setTimeout(poll, POLL_MS);
        return;
      }
      bar.max = Math.max(now.matched, 1);
      bar.value = now.done + now.failed;
      text.textContent = line(now, verb);
      panel.dataset.state = now.state;
      if (FINISHED.has(now.state)) {
        cancel.remove();
        resolve(now);
        return;
      }
      setTimeout(poll, POLL_MS);
    };
    setTimeout(poll, 0);
  });
}
