// Jobs: a filtered, paged, payload-free table. With status=deadletter it is
// the DLQ (GET /jobs/dlq, which also filters by dead reason and error
// prefix): "Why are they dead?" above it (dlq_summary.js) and, for an admin,
// the DLQ actions (dlq_actions.js).
import * as api from './api.js';
import {h, fill, time, statusBadge, shortId, tagList, truncate, pager} from './dom.js';
import {dlqActionBar} from './dlq_actions.js';
import {dlqSummaryPanel} from './dlq_summary.js';

export const STATUSES = ['pending', 'scheduled', 'processing', 'completed', 'deadletter',
                         'cancelled', 'quarantined', 'blocked'];
export const DEAD_REASONS = ['max_retries_exceeded', 'lease_expired', 'non_retryable', 'expired'];
const PAGE_SIZE = 50;

// `params`: the hash query (queue, status, reason, tag, error_prefix, page).
export function mountJobs(main, ctx, params) {
  const filters = {
    queue: params.get('queue') || '', status: params.get('status') || '',
    reason: params.get('reason') || '', tag: params.get('tag') || '',
    error_prefix: '', fingerprint: '', error_class: '', page: Math.max(0, Number(params.get('page') || 0) || 0),
  };
  const isDlq = filters.status === 'deadletter';
  if (isDlq) {
    filters.error_prefix = params.get('error_prefix') || '';
    // An error class (dlq_summary.js): its fingerprint selects, its
    // normalized message (error_class) is only shown.
    filters.fingerprint = params.get('fingerprint') || '';
    filters.error_class = params.get('error_class') || '';
  }
  const selected = new Set();  // kept across refreshes
  const tableBox = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  const queueSelect = h('select', {name: 'queue', 'data-test': 'filter-queue'},
                        h('option', {value: ''}, 'all queues'));
  const form = filterForm(filters, queueSelect);
  const actions = isDlq && ctx.canAct ? dlqActionBar(filters, selected, () => refresh()) : null;
  const summary = isDlq ? dlqSummaryPanel(filters, ctx.canAct) : null;
  fill(main, h('h1', {}, isDlq ? 'Dead letters (DLQ)' : 'Jobs'), form,
       summary ? summary.element : null, errorChip(filters),
       actions ? actions.element : null, tableBox);

  api.get('/queues').then((queues) => {
    for (const q of queues) queueSelect.append(h('option', {value: q.queue_name}, q.queue_name));
    queueSelect.value = filters.queue;
  }).catch(() => {});

  async function refresh() {
    const q = {queue_name: filters.queue, tag: filters.tag, limit: PAGE_SIZE,
               offset: filters.page * PAGE_SIZE};
    const jobs = isDlq
      ? await api.get(`/jobs/dlq${api.query({...q, dead_reason: filters.reason,
                                             error_prefix: filters.error_prefix,
                                             fingerprint: filters.fingerprint})}`)
      : await api.get(`/jobs${api.query({...q, status: filters.status})}`);
    if (summary) await summary.refresh();
    for (const id of [...selected]) if (!jobs.some((j) => j.id === id)) selected.delete(id);
    fill(tableBox, jobTable(jobs, isDlq && ctx.canAct, selected, actions),
         pager(filters.page, jobs.length === PAGE_SIZE,
               (page) => `#/jobs${api.query({...filters, page: page || ''})}`));
    if (actions) actions.update();
  }
  return {refresh};
}

// The error class the DLQ is narrowed to (set by a link of the summary panel
// with its queue and reason), as a chip whose × removes all three.
function errorChip(filters) {
  if (!filters.error_prefix && !filters.fingerprint) return null;
  const rest = {...filters, queue: '', reason: '', error_prefix: '', fingerprint: '',
                error_class: '', page: ''};
  const where = [filters.queue, filters.reason].filter(Boolean).join(' · ');
  const what = filters.fingerprint
    ? ['error class “', truncate(filters.error_class || filters.fingerprint, 80), '”']
    : ['error starts with “', truncate(filters.error_prefix, 80), '”'];
  return h('p', {class: 'chips'},
    h('span', {class: 'chip', 'data-test': 'filter-error',
               title: filters.fingerprint || filters.error_prefix},
      where ? `${where} · ` : '', ...what,
      h('a', {href: `#/jobs${api.query(rest)}`, class: 'chip-remove',
              'aria-label': 'remove the error filter', 'data-test': 'remove-error-filter'}, '×')));
}

function filterForm(filters, queueSelect) {
  const status = h('select', {name: 'status', 'data-test': 'filter-status'},
    h('option', {value: ''}, 'any status'),
    STATUSES.map((s) => h('option', {value: s}, s === 'deadletter' ? 'deadletter (DLQ)' : s)));
  status.value = filters.status;
  const reason = h('select', {name: 'reason', 'data-test': 'filter-reason',
                              disabled: filters.status !== 'deadletter'},
    h('option', {value: ''}, 'any dead reason'),
    DEAD_REASONS.map((r) => h('option', {value: r}, r)));
  reason.value = filters.reason;
  const tag = h('input', {name: 'tag', value: filters.tag, placeholder: 'tag: key or key=value',
                          'data-test': 'filter-tag'});
  const form = h('form', {class: 'filters'},
    h('label', {}, 'Queue ', queueSelect), h('label', {}, 'Status ', status),
    h('label', {}, 'Dead reason ', reason), h('label', {}, 'Tag ', tag),
    h('button', {type: 'submit'}, 'Apply'));
  const apply = () => {
    const next = {queue: queueSelect.value, status: status.value,
                  reason: status.value === 'deadletter' ? reason.value : '', tag: tag.value.trim()};
    location.hash = `#/jobs${api.query(next)}`;
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); apply(); });
  for (const select of [queueSelect, status, reason]) select.addEventListener('change', apply);
  return form;
}

function jobTable(jobs, selectable, selected, actions) {
  if (jobs.length === 0) return h('p', {class: 'empty'}, 'No jobs match these filters.');
  const dead = jobs.some((j) => j.status === 'deadletter');
  const checkbox = (job) => {
    const box = h('input', {type: 'checkbox', 'aria-label': `select job ${job.id}`,
                            'data-job': job.id, checked: selected.has(job.id)});
    box.addEventListener('change', () => {
      if (box.checked) selected.add(job.id); else selected.delete(job.id);
      actions.update();
    });
    return box;
  };
  let all = null;
  if (selectable) {
    all = h('input', {type: 'checkbox', 'aria-label': 'select all on this page',
                      'data-test': 'select-all'});
    all.checked = jobs.every((j) => selected.has(j.id));
    all.addEventListener('change', () => {
      for (const j of jobs) if (all.checked) selected.add(j.id); else selected.delete(j.id);
      for (const box of document.querySelectorAll('input[data-job]')) box.checked = all.checked;
      actions.update();
    });
  }
  return h('table', {class: 'grid', 'data-test': 'jobs'},
    h('thead', {}, h('tr', {}, selectable ? h('th', {}, all) : null,
      ['Job', 'Queue', 'Status', 'Priority', 'Attempts', 'Retries', 'Last error'].map((t) =>
        h('th', {}, t)),
      dead ? h('th', {}, 'Dead reason') : null, h('th', {}, 'Tags'), h('th', {}, 'Created'),
      dead ? h('th', {}, 'Dead since') : null)),
    h('tbody', {}, jobs.map((j) => h('tr', {'data-id': j.id},
      selectable ? h('td', {}, checkbox(j)) : null,
      h('td', {}, h('a', {href: `#/jobs/${api.enc(j.id)}`, class: 'mono', title: j.id},
                    shortId(j.id))),
      h('td', {}, j.queue_name), h('td', {}, statusBadge(j.status)),
      h('td', {class: 'num'}, String(j.priority)), h('td', {class: 'num'}, String(j.attempts)),
      h('td', {class: 'num'}, `${j.retry_count}/${j.max_retries}`),
      h('td', {class: 'error-text', title: j.last_error || ''}, truncate(j.last_error, 80)),
      dead ? h('td', {}, j.dead_reason || '') : null,
      h('td', {}, tagList(j.tags)), h('td', {}, time(j.created_at)),
      dead ? h('td', {}, time(j.deadlettered_at)) : null))));
}
