// The schedule form (create on the list page, edit on a schedule's page) and
// the pieces both schedule pages share: the active/paused state, pause and
// resume, trigger now and delete. Admin only: a viewer gets none of these.
// Under the cron field the form shows the expression's next runs in the
// zone typed, as the server computes them.
import * as api from './api.js';
import {h, fill, relativeTime} from './dom.js';
import {openDialog, showNotice, showError, busy, clearMessages} from './ui.js';

// docs/api.md, "Schedules" ([ext] fields).
const MISSED_RUN_POLICIES = [
  ['skip', 'skip'], ['run_once', 'run_once'], ['backfill', 'backfill']];
const OVERLAP_POLICIES = [
  ['allow', 'allow'], ['skip_if_running', 'skip_if_running'],
  ['cancel_previous', 'cancel_previous']];

// [field, label, hint, kind]: 'text', 'optional' (empty: null), 'mono', 'json',
// 'int' or a list of [value, label] options.
const FIELDS = [
  ['name', 'Name', null, 'text'],
  ['description', 'Description (optional)', null, 'optional'],
  ['cron_expression', 'Cron expression',
   '5 fields (minute first) or 6 (second first), a macro (@daily, @hourly) or @every 15m.',
   'mono'],
  ['timezone', 'Time zone', 'An IANA zone (UTC, Europe/Berlin, America/New_York): the ' +
   'expression is matched against its wall-clock time.', 'text'],
  ['queue_name', 'Queue', 'Each run enqueues one job into this queue.', 'text'],
  ['payload_template', 'Payload', 'The JSON payload of each job.', 'json'],
  ['priority', 'Priority', '−100..100', 'int'],
  ['max_retries', 'Max retries', '0..100', 'int'],
  ['timeout_seconds', 'Timeout (seconds)', 'per attempt, 1..86400', 'int'],
  ['missed_run_policy', 'Missed runs', 'Fire times that passed while the server was down: ' +
   'skip them, run_once for all, or backfill one job each.', MISSED_RUN_POLICIES],
  ['overlap_policy', 'Overlap', 'A run while the last job still waits or runs: allow it, ' +
   'skip_if_running, or cancel_previous first.', OVERLAP_POLICIES],
  ['backfill_limit', 'Backfill limit', '1..1000: how many missed times backfill runs', 'int'],
];

const DEFAULTS = {name: '', description: '', cron_expression: '', timezone: 'UTC',
                  queue_name: '', payload_template: {}, priority: 0, max_retries: 3,
                  timeout_seconds: 300, missed_run_policy: 'skip', overlap_policy: 'allow',
                  backfill_limit: 10};

// A field's value as the form shows it.
function shown(kind, value) {
  if (kind === 'json') return JSON.stringify(value ?? {}, null, 2);
  return value === null || value === undefined ? '' : String(value);
}

// What the operator typed, as the API wants it: {value} or {error}.
function parsed(kind, label, text) {
  if (kind === 'json') {
    try {
      return {value: JSON.parse(text)};
    } catch (e) {
      return {error: `${label}: not valid JSON (${e.message}).`};
    }
  }
  if (kind === 'int') {
    text = text.trim();
    return /^-?\d+$/.test(text) ? {value: Number(text)} : {error: `${label}: a whole number.`};
  }
  text = text.trim();
  return {value: text === '' && kind === 'optional' ? null : text};
}

function input(name, kind, value) {
  if (Array.isArray(kind)) {
    const select = h('select', {name}, kind.map(([v, label]) => h('option', {value: v}, label)));
    select.value = value;
    return select;
  }
  if (kind === 'json') {
    const area = h('textarea', {name, rows: 4, spellcheck: 'false', class: 'mono'});
    area.value = value;
    return area;
  }
  return h('input', {name, value, autocomplete: 'off', class: kind === 'mono' ? 'mono' : null,
                     inputmode: kind === 'int' ? 'numeric' : null,
                     list: name === 'timezone' ? 'time-zones' : null});
}

// The zones this browser knows, offered while typing (the server's tz
// database decides).
function zoneList() {
  const zones = typeof Intl.supportedValuesOf === 'function'
    ? ['UTC', ...Intl.supportedValuesOf('timeZone')] : ['UTC'];
  return h('datalist', {id: 'time-zones'}, zones.map((z) => h('option', {value: z})));
}

const PREVIEW_COUNT = 5;
const PREVIEW_DELAY_MS = 300;  // after the last keystroke: one request per pause, not per key
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov',
                'Dec'];

// One fire time as the server wrote it, RFC 3339 in the schedule's zone
// ("2027-03-28T03:00:00+02:00" → "Sun 28 Mar 2027, 03:00:00 UTC+02:00"): read
// as written, so the browser's own zone plays no part. UTC in the title.
function fireTime(iso) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}:\d{2}:\d{2})(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  const text = m
    ? `${WEEKDAYS[new Date(Date.UTC(+m[1], +m[2] - 1, +m[3])).getUTCDay()]} ${+m[3]} ` +
      `${MONTHS[+m[2] - 1]} ${m[1]}, ${m[4]} UTC${m[5] === 'Z' ? '' : m[5]}`
    : iso;
  return h('li', {}, h('time', {datetime: iso, title: new Date(iso).toISOString()}, text),
           h('span', {class: 'muted'}, ` ${relativeTime(iso)}`));
}

// "Next 5 runs (ZONE)" for what is typed in `cronInput` and `zoneInput`:
// the server's preview (GET /schedules/preview, the code its scheduler fires
// by, daylight saving included), asked PREVIEW_DELAY_MS after the last
// keystroke. An expression or zone the server refuses shows its message in
// place of the list. Only the latest question's answer is shown.
function cronPreview(cronInput, zoneInput) {
  const box = h('div', {class: 'cron-preview', 'data-test': 'cron-preview', 'aria-live': 'polite'});
  let timer = null;
  let asked = 0;
  const show = async () => {
    const cron = cronInput.value.trim();
    const n = ++asked;
    box.removeAttribute('data-cron');
    if (cron === '') {
      fill(box, h('p', {class: 'muted'}, 'Type a cron expression to see its next runs.'));
      return;
    }
    let answer;
    try {
      answer = await api.get(`/schedules/preview${api.query({
        cron_expression: cron, timezone: zoneInput.value.trim(), count: PREVIEW_COUNT})}`);
    } catch (err) {
      if (n !== asked) return;
      fill(box, h('p', {class: 'field-error', 'data-test': 'cron-preview-error'},
                  `${err.code}: ${err.message}`));
      box.dataset.cron = cron;
      return;
    }
    if (n !== asked) return;
    const times = answer.next_run_times;
    fill(box, h('p', {class: 'cron-preview-title'},
                `Next ${times.length === 1 ? 'run' : `${times.length} runs`} (${answer.timezone})`),
         times.length ? h('ol', {}, times.map(fireTime))
                      : h('p', {class: 'muted'}, 'It never fires within ten years.'));
    box.dataset.cron = answer.cron_expression;
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(show, PREVIEW_DELAY_MS);
  };
  cronInput.addEventListener('input', later);
  zoneInput.addEventListener('input', later);
  show();
  return box;
}

// `schedule`: null to create, else the schedule to edit (only the fields
// changed are sent: a cron expression or zone sent again would recompute the
// next run from now). `onSaved(result)` gets the server's answer. `onEdit`
// is called when the operator starts typing, so the page's poll leaves the
// form alone.
export function scheduleForm({schedule = null, onSaved, onEdit = () => {}}) {
  const creating = schedule === null;
  const start = creating ? DEFAULTS : schedule;
  const errors = {};
  const inputs = {};
  const fieldError = (name) => (errors[name] = h('p', {class: 'field-error', role: 'alert',
                                                       'data-field-error': name}));
  const submit = h('button', {type: 'submit', class: 'primary',
                              'data-test': creating ? 'create-schedule' : 'save-schedule'},
                   creating ? 'Create schedule' : 'Save changes');
  const field = ([name, label, hint, kind]) => {
    inputs[name] = input(name, kind, shown(kind, start[name]));
    return h('label', {class: `field field-${name}`}, h('span', {}, label), inputs[name],
             hint ? h('small', {class: 'muted'}, hint) : null, fieldError(name));
  };
  const byName = Object.fromEntries(FIELDS.map((f) => [f[0], f]));
  const group = (...names) => h('div', {class: 'field-row'}, names.map((n) => field(byName[n])));
  const form = h('form', {class: 'entity-form schedule-form', 'data-test': 'schedule-form',
                          novalidate: true},
    group('name', 'queue_name'), field(byName.description),
    group('cron_expression', 'timezone'), cronPreview(inputs.cron_expression, inputs.timezone),
    field(byName.payload_template),
    group('priority', 'max_retries', 'timeout_seconds'),
    group('missed_run_policy', 'overlap_policy', 'backfill_limit'),
    zoneList(), fieldError(''), h('div', {class: 'actions'}, submit));

  const showProblem = (fieldName, text) => {
    const box = errors[fieldName] ?? errors[''];
    box.textContent = text;
    const el = inputs[fieldName];
    if (el) {
      el.setAttribute('aria-invalid', 'true');
      el.focus();
    }
  };

  form.addEventListener('input', onEdit);
  form.addEventListener('focusin', onEdit);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    for (const el of Object.values(errors)) el.textContent = '';
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    const body = {};
    for (const [name, label, , kind] of FIELDS) {
      const r = parsed(kind, label, inputs[name].value);
      if (r.error) {
        showProblem(name, r.error);
        return;
      }
      const unchanged = !creating &&
        JSON.stringify(r.value) === JSON.stringify(schedule[name] ?? null);
      if (!unchanged) body[name] = r.value;
    }
    if (creating && body.description === null) delete body.description;
    if (!creating && Object.keys(body).length === 0) {
      errors[''].textContent = 'Nothing changed.';
      return;
    }
    submit.disabled = true;
    try {
      const result = creating ? await api.post('/schedules', body)
                              : await api.put(`/schedules/${api.enc(schedule.id)}`, body);
      clearMessages();  // the errors of earlier tries no longer apply
      onSaved(result);
    } catch (err) {
      // The server's words, next to the field it names (and at the top, as
      // every page shows errors).
      showProblem(err.details?.field, `${err.code}: ${err.message}`);
      showError(err, creating ? 'Create schedule' : 'Save schedule');
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

// "active" / "paused".
export function stateBadge(s) {
  return s.is_active ? h('span', {class: 'badge active', 'data-test': 'schedule-state'}, 'active')
                     : h('span', {class: 'badge paused', 'data-test': 'schedule-state'}, 'paused');
}

// Pause (a dialog first: pausing skips every fire time until resumed) or resume.
export function pauseButton(s, after) {
  const b = h('button', {type: 'button', class: 'small',
                         'data-test': s.is_active ? 'pause' : 'resume'},
              s.is_active ? 'Pause' : 'Resume');
  b.addEventListener('click', async () => {
    const path = `/schedules/${api.enc(s.id)}`;
    if (!s.is_active) {
      await busy(b, 'Resume', async () => {
        const r = await api.post(`${path}/resume`);
        showNotice(`Schedule ${s.name} resumed: next run ${relativeTime(r.next_run_at)}.`);
      });
      after();
      return;
    }
    const values = await openDialog({title: `Pause schedule “${s.name}”?`,
      body: ['It enqueues nothing until it is resumed. Resuming starts from then: the fire ' +
             'times in between never run.'],
      confirmLabel: 'Pause schedule', reason: true});
    if (!values) return;
    await busy(b, 'Pause', async () => {
      await api.post(`${path}/pause`, {}, {reason: values.reason});
      showNotice(`Schedule ${s.name} paused.`);
    });
    after();
  });
  return b;
}

// "Trigger now": one job now, as a manual run (the overlap policy applies).
export function triggerButton(s, after) {
  const b = h('button', {type: 'button', class: 'small', 'data-test': 'trigger'}, 'Trigger now');
  b.addEventListener('click', async () => {
    const values = await openDialog({title: `Trigger schedule “${s.name}” now?`,
      body: [`One job is enqueued into queue ${s.queue_name} now, whether or not the schedule ` +
             'is active; its next run stays as it is. Its overlap policy ' +
             `(${s.overlap_policy}) applies.`],
      confirmLabel: 'Trigger now', reason: true});
    if (!values) return;
    await busy(b, 'Trigger', async () => {
      const r = await api.post(`/schedules/${api.enc(s.id)}/trigger`, {}, {reason: values.reason});
      showNotice(`Schedule ${s.name} triggered: job ${r.job_id} enqueued.`);
    });
    after();
  });
  return b;
}

export function deleteButton(s, after) {
  const b = h('button', {type: 'button', class: 'small danger', 'data-test': 'delete'}, 'Delete');
  b.addEventListener('click', async () => {
    const values = await openDialog({title: `Delete schedule “${s.name}”?`, danger: true,
      body: [h('p', {}, 'Cron: ', h('code', {}, s.cron_expression), ` (${s.timezone}), into queue `,
               h('code', {}, s.queue_name), '.'),
             'The schedule and its run history are deleted; the jobs it enqueued stay. ' +
             'This cannot be undone.'],
      confirmLabel: 'Delete schedule', reason: true});
    if (!values) return;
    const done = await busy(b, 'Delete', async () => {
      await api.del(`/schedules/${api.enc(s.id)}`, {reason: values.reason});
      showNotice(`Schedule ${s.name} deleted.`);
      return true;
    });
    if (done) after();
  });
  return b;
}

export const refreshAfter = (refresh) => () => refresh().catch((e) => showError(e, 'Refresh'));
