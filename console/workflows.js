// Workflows: every workflow, newest first, with its status (read from its
// jobs by the server), its jobs' progress and when it was created and
// finished; filtered by status, paged.
import * as api from './api.js';
import {h, fill, time, statusBadge, truncate, pager} from './dom.js';

export const WORKFLOW_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'];
const PAGE_SIZE = 50;

// `params`: the hash query (status, page).
export function mountWorkflows(main, ctx, params) {
  const filters = {status: params.get('status') || '',
                   page: Math.max(0, Number(params.get('page') || 0) || 0)};
  const tableBox = h('section', {class: 'card'}, h('p', {class: 'muted'}, 'Loading…'));
  fill(main, h('h1', {}, 'Workflows'),
       h('p', {class: 'muted'}, 'A workflow is a set of jobs created together, each waiting ' +
         'for the jobs it depends on to complete (blocked meanwhile). Its status is read from ' +
         'its jobs: failed once one of them is dead-lettered or quarantined.'),
       statusFilter(filters), tableBox);

  async function refresh() {
    const workflows = await api.get(`/workflows${api.query({status: filters.status,
      limit: PAGE_SIZE, offset: filters.page * PAGE_SIZE})}`);
    const more = workflows.length === PAGE_SIZE;
    fill(tableBox, workflowTable(workflows, filters),
         filters.page > 0 || more
           ? pager(filters.page, more,
                   (p) => `#/workflows${api.query({...filters, page: p || ''})}`) : null);
  }
  return {refresh};
}

function statusFilter(filters) {
  const status = h('select', {name: 'status', 'data-test': 'filter-status'},
    h('option', {value: ''}, 'any status'),
    WORKFLOW_STATUSES.map((s) => h('option', {value: s}, s)));
  status.value = filters.status;
  // A new filter starts again at the first page.
  status.addEventListener('change', () => {
    location.hash = `#/workflows${api.query({status: status.value})}`;
  });
  return h('form', {class: 'filters', onsubmit: (e) => e.preventDefault()},
           h('label', {}, 'Status ', status));
}

const COLUMNS = ['Name', 'Status', 'Jobs', 'Completed', 'Failed', 'Progress', 'Created',
                 'Finished'];
const NUMERIC = new Set(['Jobs', 'Completed', 'Failed', 'Progress']);

function workflowTable(workflows, filters) {
  if (workflows.length === 0) {
    if (filters.page > 0) return h('p', {class: 'empty'}, 'No more workflows.');
    return h('p', {class: 'empty'}, filters.status
      ? `No ${filters.status} workflows.`
      : 'No workflows yet. Producers create them with POST /api/v1/workflows.');
  }
  return h('table', {class: 'grid', 'data-test': 'workflows'},
    h('thead', {}, h('tr', {}, COLUMNS.map((t) => h('th', {class: NUMERIC.has(t) ? 'num' : ''},
                                                    t)))),
    h('tbody', {}, workflows.map((w) => h('tr', {'data-id': w.id, 'data-name': w.name,
                                                 'data-status': w.status},
      h('td', {}, h('a', {href: `#/workflows/${api.enc(w.id)}`, class: 'workflow-name'}, w.name),
        w.description ? h('div', {class: 'muted small'}, truncate(w.description, 80)) : null),
      h('td', {}, statusBadge(w.status)),
      h('td', {class: 'num', 'data-test': 'total'}, String(w.total_jobs)),
      h('td', {class: 'num', 'data-test': 'completed'}, String(w.completed_jobs)),
      h('td', {class: `num${w.failed_jobs > 0 ? ' failures' : ''}`, 'data-test': 'failed'},
        String(w.failed_jobs)),
      h('td', {class: 'num'}, `${Math.floor(w.progress_percent)}%`),
      h('td', {}, time(w.created_at)),
      h('td', {'data-test': 'finished'}, time(w.completed_at))))));
}
