// "Why are they dead?": above the DLQ table, the dead jobs grouped by queue,
// dead reason and error (GET /jobs/dlq/summary), largest class first. Each
// class links to the DLQ filtered to it (queue, reason and error_prefix in the
// hash), where "Retry all matching…" and "Purge…" then act on that class only.
import * as api from './api.js';
import {h, fill, time} from './dom.js';

const GROUPS_SHOWN = 10;

// `filters`: the DLQ view's (queue, reason, tag, error_prefix). Without a
// class selected the panel follows the queue, reason and tag filters; with
// one (a class link sets queue, reason and error_prefix) it shows every class
// of the tag's scope, the selected one marked, so one click switches class.
export function dlqSummaryPanel(filters) {
  const body = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  const element = h('section', {class: 'card dlq-summary', 'data-test': 'dlq-summary'},
                    h('h2', {}, 'Why are they dead?'), body);

  async function refresh() {
    const scope = filters.error_prefix
      ? {tag: filters.tag}
      : {queue_name: filters.queue, dead_reason: filters.reason, tag: filters.tag};
    const groups = await api.get(`/jobs/dlq/summary${api.query({...scope, limit: GROUPS_SHOWN})}`);
    fill(body, groups.length === 0
      ? h('p', {class: 'muted'}, 'No dead jobs match these filters.')
      : groupTable(groups, filters));
  }
  return {element, refresh};
}

function groupTable(groups, filters) {
  return h('table', {class: 'grid'},
    h('thead', {}, h('tr', {}, ['Count', 'Queue', 'Dead reason', 'Error', 'Oldest', ''].map((t) =>
      h('th', {}, t)))),
    h('tbody', {}, groups.map((g) => {
      const active = isSelected(g, filters);
      return h('tr', {'data-test': 'dlq-class', class: active ? 'selected' : null},
        h('td', {class: 'num count'}, String(g.count)),
        h('td', {}, g.queue_name),
        h('td', {}, g.dead_reason || ''),
        h('td', {class: 'error-text'},
          g.error === null ? h('span', {class: 'muted'}, '(no error)') : g.error),
        h('td', {}, time(g.oldest_deadlettered_at)),
        h('td', {}, active
          ? h('span', {class: 'muted'}, 'shown below')
          : h('a', {href: classHash(g, filters), class: 'button', 'data-test': 'show-class'},
              'Show only these')));
    })));
}

// The DLQ view of one class. A group's error is its jobs' first 200
// characters, shown whole (wrapped, never cut), so as a prefix it selects
// exactly the group's jobs (a group
// without an error is narrowed to its queue and reason only).
export function classHash(group, filters) {
  return `#/jobs${api.query({
    queue: group.queue_name, status: 'deadletter', reason: group.dead_reason || '',
    tag: filters.tag, error_prefix: group.error ?? ''})}`;
}

function isSelected(group, filters) {
  return filters.error_prefix !== '' && group.error === filters.error_prefix &&
         group.queue_name === filters.queue && (group.dead_reason || '') === filters.reason;
}
