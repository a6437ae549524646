// Overview: every queue's counts, paused state and DLQ age, and the
// throughput chart. Refreshed by the app's poll.
import * as api from './api.js';
import {h, fill, time} from './dom.js';
import {throughputChart} from './chart.js';
import {showError, showNotice, openDialog, busy} from './ui.js';
import {STATUSES} from './jobs.js';
import {queueState} from './durations.js';

export function mountOverview(main, ctx) {
  const chartBox = h('section', {class: 'card'}, h('h2', {}, 'Throughput'),
                     h('p', {class: 'muted'}, 'Loading…'));
  const queuesBox = h('section', {class: 'card'}, h('h2', {}, 'Queues'),
                      h('p', {class: 'muted'}, 'Loading…'));
  fill(main, h('h1', {}, 'Overview'), queuesBox, chartBox);

  async function refresh() {
    const [queues, throughput] = await Promise.all([api.get('/queues'),
                                                    api.get('/throughput')]);
    fill(queuesBox, h('h2', {}, 'Queues'), queueTable(queues, ctx, refresh));
    fill(chartBox, h('h2', {}, 'Throughput'), throughputChart(throughput));
  }
  return {refresh};
}

function queueTable(queues, ctx, refresh) {
  if (queues.length === 0) {
    return h('p', {class: 'empty'}, 'No queues yet. A queue appears when the first job is ' +
             'enqueued to it or when it is configured or paused.');
  }
  const jobsLink = (queue, status, n) => h('a', {
    href: `#/jobs?queue=${api.enc(queue)}&status=${status}`,
    class: n > 0 ? `count status-${status}` : 'count zero'}, String(n));
  return h('table', {class: 'grid', 'data-test': 'queues'},
    h('thead', {}, h('tr', {}, h('th', {}, 'Queue'), h('th', {}, 'State'),
      STATUSES.map((s) => h('th', {class: 'num'}, s === 'deadletter' ? 'dead (DLQ)' : s)),
      h('th', {}, 'Oldest dead'), ctx.canAct ? h('th', {}, '') : null)),
    h('tbody', {}, queues.map((q) => h('tr', {'data-queue': q.queue_name},
      h('td', {}, h('a', {href: `#/queues/${api.enc(q.queue_name)}`, class: 'queue-name'},
                    q.queue_name)),
      h('td', {}, stateBadge(q)),
      STATUSES.map((s) => h('td', {class: 'num'}, jobsLink(q.queue_name, s, q.counts[s]))),
      h('td', {class: q.oldest_deadletter_at ? 'warn' : ''}, time(q.oldest_deadletter_at)),
      ctx.canAct ? h('td', {}, pauseButton(q, refresh)) : null))));
}

// disabled, paused or active: the words of `redrive queues list`.
export function stateBadge(q) {
  const state = queueState(q);
  return h('span', {class: `badge ${state}`, title: q.paused_reason || null,
                    'data-test': 'queue-state'}, state);
}

export function pauseButton(q, refresh) {
  const button = h('button', {type: 'button', class: 'small'}, q.paused ? 'Resume' : 'Pause');
  button.addEventListener('click', async () => {
    const name = api.enc(q.queue_name);
    if (q.paused) {
      await busy(button, 'Resume', async () => {
        await api.post(`/queues/${name}/resume`);
        showNotice(`Queue ${q.queue_name} resumed: workers get its jobs again.`);
      });
    } else {
      const values = await openDialog({
        title: `Pause queue ${q.queue_name}?`,
        body: ['Workers will get no jobs from this queue until it is resumed. ' +
               'Producers can still enqueue; running jobs finish normally.'],
        fields: [{name: 'reason', label: 'Reason (optional)', placeholder: 'e.g. payment provider down'}],
        confirmLabel: 'Pause queue'});
      if (!values) return;
      await busy(button, 'Pause', async () => {
        await api.post(`/queues/${name}/pause`, values.reason ? {reason: values.reason} : {});
        showNotice(`Queue ${q.queue_name} paused.`);
      });
    }
    refresh().catch((e) => showError(e, 'Refresh'));
  });
  return button;
}
