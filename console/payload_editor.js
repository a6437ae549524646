// A job's payload: shown read-only, hidden for viewer keys (the server leaves
// it out), and for a dead job editable by an admin: the text is checked as
// JSON while typing, and only valid JSON can be saved (then optionally retried).
import * as api from './api.js';
import {h} from './dom.js';
import {showNotice, busy, showError} from './ui.js';

export function payloadSection(job, ctx, refresh) {
  const element = h('section', {class: 'card', 'data-test': 'payload'}, h('h2', {}, 'Payload'));
  let editing = false;
  if (!('payload' in job)) {
    element.append(h('p', {class: 'muted'}, 'Payloads are not shown to the viewer role.'));
    return {element, editing: () => false};
  }
  const pretty = JSON.stringify(job.payload, null, 2);
  const view = h('pre', {class: 'payload', 'data-test': 'payload-view'}, pretty);
  element.append(view);
  if (job.result !== undefined && job.result !== null) {
    element.append(h('h3', {}, 'Result'), h('pre', {class: 'payload'},
                                             JSON.stringify(job.result, null, 2)));
  }
  if (ctx.canAct && (job.status === 'deadletter' || job.status === 'quarantined')) {
    const edit = h('button', {type: 'button', 'data-test': 'edit-payload'}, 'Edit payload');
    edit.addEventListener('click', () => {
      editing = true;
      edit.remove();
      view.replaceWith(editor(job, pretty, () => { editing = false; return refresh(); }));
    });
    element.append(edit);
  }
  return {element, editing: () => editing};
}

function editor(job, text, done) {
  const path = `/jobs/${api.enc(job.id)}`;
  const area = h('textarea', {class: 'payload-editor', rows: 12, spellcheck: 'false',
                              'data-test': 'payload-editor', 'aria-label': 'payload JSON'});
  area.value = text;
  const status = h('p', {class: 'json-status', 'data-test': 'json-status'});
  const save = h('button', {type: 'button', 'data-test': 'save-payload'}, 'Save payload');
  // A quarantined job is released (crash count reset) rather than retried.
  const quarantined = job.status === 'quarantined';
  const again = quarantined ? 'release' : 'retry';
  const done_ = quarantined ? 'released' : 'retried';
  const saveRetry = h('button', {type: 'button', class: 'primary',
                                 'data-test': 'save-and-retry'}, `Save and ${again}`);
  const cancel = h('button', {type: 'button'}, 'Discard changes');
  const parse = () => {
    try {
      const value = JSON.parse(area.value);
      status.textContent = 'Valid JSON.';
      status.className = 'json-status ok';
      save.disabled = saveRetry.disabled = false;
      return {ok: true, value};
    } catch (e) {
      status.textContent = `Not valid JSON: ${e.message}`;
      status.className = 'json-status bad';
      save.disabled = saveRetry.disabled = true;
      return {ok: false};
    }
  };
  area.addEventListener('input', parse);
  const submit = (button, retry) => busy(button, retry ? `Save and ${again}` : 'Save payload',
    async () => {
      const parsed = parse();
      if (!parsed.ok) return;
      await api.put(`${path}/payload`, {payload: parsed.value});
      if (retry) await api.post(`${path}/${again}`, {});
      showNotice(retry ? `Payload saved and job ${done_}: it is pending again.`
                       : `Payload saved. The job stays ${job.status} until you ${again} it.`);
      await done();
    });
  save.addEventListener('click', () => submit(save, false));
  saveRetry.addEventListener('click', () => submit(saveRetry, true));
  cancel.addEventListener('click', () => done().catch((e) => showError(e, 'Refresh')));
  parse();
  const box = h('div', {class: 'editor'}, area, status,
                h('div', {class: 'actions'}, save, saveRetry, cancel));
  return box;
}

