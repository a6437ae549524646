// One schedule: its settings with the next run in its own time zone, its
// actions and an edit form (admin), and its run history, newest first,
// paged: each run's kind, status, the job it enqueued and why a run enqueued
// nothing.
import * as api from './api.js';
import {h, fill, time, statusBadge, shortId, tagList, pager} from './dom.js';
import {scheduleForm, stateBadge, pauseButton, triggerButton, deleteButton,
        refreshAfter} from './schedule_form.js';
import {showNotice} from './ui.js';

const PAGE_SIZE = 50;

// `params`: the hash query (page).
export function mountSchedule(main, ctx, id, params) {
  const path = `/schedules/${api.enc(id)}`;
  const page = Math.max(0, Number(params.get('page') || 0) || 0);
  let editing = false;  // the poll leaves the form alone while the operator types
  let formOf = '';      // the schedule the form was made from, as JSON
  const head = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  const factsBox = h('section', {class: 'card'});
  const formBox = ctx.canAct ? h('section', {class: 'card', 'data-test': 'edit-schedule'}) : null;
  const historyBox = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  fill(main, head, h('div', {class: formBox ? 'columns' : ''}, factsBox, formBox),
       h('section', {class: 'card'}, h('h2', {}, 'Run history'), historyBox));

  async function refresh() {
    const [s, runs] = await Promise.all([
      api.get(path),
      api.get(`${path}/history${api.query({limit: PAGE_SIZE, offset: page * PAGE_SIZE})}`)]);
    const after = refreshAfter(refresh);
    fill(head,
      h('p', {}, h('a', {href: '#/schedules'}, '← Schedules')),
      h('h1', {}, 'Schedule ', h('span', {}, s.name), ' ', stateBadge(s)),
      ctx.canAct ? h('div', {class: 'actions', 'data-test': 'schedule-actions'},
        pauseButton(s, after), triggerButton(s, after),
        deleteButton(s, () => backToList(`Schedule ${s.name} deleted.`))) : null);
    fill(factsBox, h('h2', {}, 'Settings'), facts(s));
    // Made again only when the schedule changed: a new form asks for its
    // cron preview again.
    if (formBox && !editing && JSON.stringify(s) !== formOf) {
      formOf = JSON.stringify(s);
      fill(formBox, h('h2', {}, 'Edit'), scheduleForm({
        schedule: s,
        onEdit: () => { editing = true; },
        onSaved: (saved) => {
          showNotice(`Schedule ${saved.name} saved.`);
          editing = false;
          after();
        }}));
    }
    fill(historyBox, runTable(runs, page),
         page > 0 || runs.length === PAGE_SIZE
           ? pager(page, runs.length === PAGE_SIZE,
                   (p) => `#/schedules/${api.enc(id)}${api.query({page: p || ''})}`) : null);
  }
  return {refresh};
}

// To the list, saying what was done there: a page change clears the
// messages shown before it (app.js listens first, so this notice stays).
function backToList(text) {
  window.addEventListener('hashchange', () => showNotice(text), {once: true});
  location.hash = '#/schedules';
}

// An instant as the schedule's zone reads it ("3 Dec 2026, 02:30:00 CET"),
// when this browser knows the zone.
function inZone(iso, zone) {
  if (!iso) return null;
  try {
    return new Intl.DateTimeFormat('en-GB', {timeZone: zone, dateStyle: 'medium',
                                             timeStyle: 'long'}).format(new Date(iso));
  } catch {
    return null;
  }
}

function whenIn(iso, zone) {
  const local = inZone(iso, zone);
  return [time(iso), local ? h('span', {class: 'muted'}, ` (${local})`) : null];
}

function facts(s) {
  const row = (label, value, cls) => [h('dt', {}, label), h('dd', {class: cls || ''}, value)];
  return h('dl', {class: 'facts', 'data-test': 'schedule-facts'},
    row('State', s.is_active ? stateBadge(s) : [stateBadge(s), ' no runs until resumed']),
    s.description ? row('Description', s.description) : null,
    row('Cron', h('code', {}, s.cron_expression)),
    row('Time zone', s.timezone),
    row('Queue', h('a', {href: `#/queues/${api.enc(s.queue_name)}`}, s.queue_name)),
    row('Next run', s.next_run_at ? whenIn(s.next_run_at, s.timezone)
                                  : h('span', {class: 'muted'}, s.is_active ? '—' : 'paused')),
    row('Last run', whenIn(s.last_run_at, s.timezone)),
    row('Runs', String(s.run_count)),
    row('Last job', s.last_job_id
      ? h('a', {href: `#/jobs/${api.enc(s.last_job_id)}`, class: 'mono'}, s.last_job_id) : '—'),
    row('Missed runs', s.missed_run_policy === 'backfill'
      ? `backfill (at most ${s.backfill_limit})` : s.missed_run_policy),
    row('Overlap', s.overlap_policy),
    row('Each job', `priority ${s.priority}, ${s.max_retries} retries, ` +
                    `timeout ${s.timeout_seconds} s`),
    row('Tags', tagList(s.tags)),
    row('Payload', h('pre', {class: 'payload', 'data-test': 'payload-template'},
                     JSON.stringify(s.payload_template, null, 2))),
    row('Created', time(s.created_at)), row('Updated', time(s.updated_at)),
    row('Id', h('span', {class: 'mono'}, s.id)));
}

const COLUMNS = ['Ran', 'Kind', 'Status', 'Job', 'Job now', 'Fire time', 'Error'];

function runTable(runs, page) {
  if (runs.length === 0) {
    return h('p', {class: 'empty'}, page > 0 ? 'No older runs.'
      : 'No runs yet. A run appears when the schedule fires or is triggered.');
  }
  return h('table', {class: 'grid', 'data-test': 'runs'},
    h('thead', {}, h('tr', {}, COLUMNS.map((t) => h('th', {}, t)))),
    h('tbody', {}, runs.map((r) => h('tr', {'data-id': r.id, 'data-kind': r.kind,
                                            'data-status': r.status},
      h('td', {}, time(r.started_at)),
      h('td', {}, r.kind),
      h('td', {}, statusBadge(r.status)),
      h('td', {}, r.job_id ? h('a', {href: `#/jobs/${api.enc(r.job_id)}`, class: 'mono',
                                     title: r.job_id}, shortId(r.job_id))
                           : h('span', {class: 'muted'}, 'none')),
      h('td', {}, r.job_status ? statusBadge(r.job_status) : h('span', {class: 'muted'}, '—')),
      h('td', {}, time(r.fire_time)),
      h('td', {class: 'error-text'}, r.error_message ?? '')))));
}
