// Schedules: every cron schedule, its expression and time zone, the queue it
// feeds, its next and last run and whether it is paused. An admin creates,
// pauses/resumes, triggers and deletes them.
import * as api from './api.js';
import {h, fill, time, pager, truncate, relativeTime} from './dom.js';
import {scheduleForm, stateBadge, pauseButton, triggerButton, deleteButton,
        refreshAfter} from './schedule_form.js';
import {showNotice} from './ui.js';

const PAGE_SIZE = 100;

// `params`: the hash query (page).
export function mountSchedules(main, ctx, params) {
  const page = Math.max(0, Number(params.get('page') || 0) || 0);
  const tableBox = h('section', {class: 'card'}, h('p', {class: 'muted'}, 'Loading…'));
  let formBox = null;
  if (ctx.canAct) {
    formBox = h('section', {class: 'card', 'data-test': 'new-schedule'});
    resetForm();
  }
  fill(main, h('h1', {}, 'Schedules'),
       h('p', {class: 'muted'}, 'Each schedule enqueues one job into its queue every time its ' +
         'cron expression fires in its time zone. Times here are relative; hover for UTC.'),
       tableBox, formBox);

  function resetForm() {
    fill(formBox, h('h2', {}, 'New schedule'), scheduleForm({onSaved: (created) => {
      showNotice(`Schedule ${created.name} created: next run ${relativeTime(created.next_run_at)}.`);
      resetForm();
      refreshAfter(refresh)();
    }}));
  }

  async function refresh() {
    const schedules = await api.get(`/schedules${api.query({limit: PAGE_SIZE,
                                                            offset: page * PAGE_SIZE})}`);
    fill(tableBox, h('h2', {}, 'Schedules'), scheduleTable(schedules, ctx, page, refresh),
         page > 0 || schedules.length === PAGE_SIZE
           ? pager(page, schedules.length === PAGE_SIZE,
                   (p) => `#/schedules${api.query({page: p || ''})}`) : null);
  }
  return {refresh};
}

const COLUMNS = ['Name', 'Cron', 'Time zone', 'Queue', 'Next run', 'Last run', 'Runs', 'State'];

function scheduleTable(schedules, ctx, page, refresh) {
  if (schedules.length === 0) {
    if (page > 0) return h('p', {class: 'empty'}, 'No more schedules.');
    return h('p', {class: 'empty'}, ctx.canAct ? 'No schedules yet. Create one below.'
                                               : 'No schedules are configured.');
  }
  const after = refreshAfter(refresh);
  return h('table', {class: 'grid', 'data-test': 'schedules'},
    h('thead', {}, h('tr', {},
      COLUMNS.map((t) => h('th', {class: t === 'Runs' ? 'num' : ''}, t)),
      ctx.canAct ? h('th', {}, '') : null)),
    h('tbody', {}, schedules.map((s) => h('tr', {'data-id': s.id, 'data-name': s.name,
                                                 class: s.is_active ? '' : 'row-paused'},
      h('td', {}, h('a', {href: `#/schedules/${api.enc(s.id)}`, class: 'schedule-name'}, s.name),
        s.description ? h('div', {class: 'muted small'}, truncate(s.description, 80)) : null),
      h('td', {class: 'mono', 'data-test': 'cron'}, s.cron_expression),
      h('td', {}, s.timezone),
      h('td', {}, h('a', {href: `#/queues/${api.enc(s.queue_name)}`, class: 'mono'},
                    s.queue_name)),
      h('td', {'data-test': 'next-run'}, s.is_active ? time(s.next_run_at)
                                                     : h('span', {class: 'muted'}, 'paused')),
      h('td', {'data-test': 'last-run'}, time(s.last_run_at)),
      h('td', {class: 'num'}, String(s.run_count)),
      h('td', {}, stateBadge(s)),
      ctx.canAct ? h('td', {class: 'row-actions'}, pauseButton(s, after), triggerButton(s, after),
                     deleteButton(s, after)) : null))));
}
