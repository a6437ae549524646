// The audit log: every operator change, newest first — who, what, the
// outcome and why. Filters by actor, action and target; pages by cursor
// (GET /api/v1/audit). Admins also see the client address.
import * as api from './api.js';
import {h, fill, time, truncate} from './dom.js';

const PAGE_SIZE = 50;
const ACTIONS = ['job.retry', 'job.cancel', 'job.priority', 'job.payload', 'dlq.retry',
                 'dlq.purge', 'queue.pause', 'queue.resume', 'queue.config', 'queue.delete',
                 'webhook.create', 'webhook.update', 'webhook.delete', 'webhook.test',
                 'schedule.create', 'schedule.update', 'schedule.delete', 'schedule.pause',
                 'schedule.resume', 'schedule.trigger', 'api_key.create', 'api_key.update',
                 'api_key.revoke'];

// `params`: the hash query (actor, action, target, cursor).
export function mountAudit(main, ctx, params) {
  const filters = {actor: params.get('actor') || '', action: params.get('action') || '',
                   target: params.get('target') || '', cursor: params.get('cursor') || ''};
  const tableBox = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  fill(main, h('h1', {}, 'Audit log'),
       h('p', {class: 'muted'}, 'Every change made through the operator routes, with the key ' +
         'that made it and the reason it gave.'),
       filterForm(filters), tableBox);

  async function refresh() {
    const page = await api.get(`/audit${api.query({...filters, limit: PAGE_SIZE})}`);
    const firstPage = filters.cursor === '';
    fill(tableBox, auditTable(page.entries, ctx),
      h('nav', {class: 'pager'},
        firstPage ? h('span', {class: 'button disabled'}, '← Newest')
                  : h('a', {href: `#/audit${api.query({...filters, cursor: ''})}`,
                            class: 'button'}, '← Newest'),
        page.next_cursor
          ? h('a', {href: `#/audit${api.query({...filters, cursor: page.next_cursor})}`,
                    class: 'button', 'data-test': 'audit-older'}, 'Older →')
          : h('span', {class: 'button disabled'}, 'Older →')));
  }
  return {refresh};
}

function filterForm(filters) {
  const actor = h('input', {name: 'actor', value: filters.actor, placeholder: 'key name or label',
                            'data-test': 'filter-actor'});
  const action = h('select', {name: 'action', 'data-test': 'filter-action'},
    h('option', {value: ''}, 'any action'), ACTIONS.map((a) => h('option', {value: a}, a)));
  action.value = filters.action;
  const target = h('input', {name: 'target', value: filters.target,
                             placeholder: 'job:ID, queue:NAME, schedule:ID',
                             'data-test': 'filter-target'});
  const form = h('form', {class: 'filters'},
    h('label', {}, 'Actor ', actor), h('label', {}, 'Action ', action),
    h('label', {}, 'Target ', target), h('button', {type: 'submit'}, 'Apply'));
  const apply = () => {
    location.hash = `#/audit${api.query({actor: actor.value.trim(), action: action.value,
                                         target: target.value.trim()})}`;
  };
  form.addEventListener('submit', (e) => { e.preventDefault(); apply(); });
  action.addEventListener('change', apply);
  return form;
}

// "job:ID" links to the job, "queue:NAME" to the queue, "webhook:ID" to the
// webhook, "schedule:ID" to the schedule, "api_key:ID" to the Keys page.
function targetLink(target) {
  const [kind, ...rest] = target.split(':');
  const value = rest.join(':');
  const pages = {job: '#/jobs/', queue: '#/queues/', webhook: '#/webhooks/',
                 schedule: '#/schedules/'};
  if (kind === 'api_key') return h('a', {href: '#/keys', class: 'mono'}, truncate(target, 48));
  if (!pages[kind]) return h('span', {class: 'mono'}, target);
  return h('a', {href: `${pages[kind]}${api.enc(value)}`, class: 'mono'}, truncate(target, 48));
}

function whatCell(e) {
  const parts = [];
  if (e.targets.length > 0) {
    parts.push(targetLink(e.targets[0]));
    if (e.targets.length > 1) parts.push(h('span', {class: 'muted'}, ` +${e.targets.length - 1}`));
  } else if (e.selector) {
    parts.push(h('span', {class: 'mono', title: e.selector}, truncate(e.selector, 60)));
  }
  if (e.count !== null) parts.push(h('span', {class: 'muted'}, ` (${e.count} jobs)`));
  return parts.length ? parts : h('span', {class: 'muted'}, '—');
}

function auditTable(entries, ctx) {
  if (entries.length === 0) return h('p', {class: 'empty'}, 'No audit entries match.');
  const admin = ctx.role === 'admin';
  return h('table', {class: 'grid', 'data-test': 'audit'},
    h('thead', {}, h('tr', {}, ['When', 'Actor', 'Action', 'What', 'Status', 'Reason'].map(
      (t) => h('th', {}, t)), admin ? h('th', {}, 'From') : null)),
    h('tbody', {}, entries.map((e) => h('tr', {'data-id': e.id, 'data-action': e.action},
      h('td', {}, time(e.at)),
      h('td', {}, e.actor),
      h('td', {title: `${e.method} ${e.route}`}, e.action),
      h('td', {}, whatCell(e)),
      h('td', {class: e.status >= 300 ? 'failures' : ''}, String(e.status)),
      h('td', {class: 'reason'}, e.reason ?? h('span', {class: 'muted'}, '—')),
      admin ? h('td', {class: 'mono', title: `request ${e.request_id}`},
                e.client_address || '—') : null))));
}
