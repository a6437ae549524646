// "Why are they dead?": above the DLQ table, the dead jobs grouped by queue,
// dead reason and error class (GET /jobs/dlq/summary: errors alike but for
// numbers, ids, quoted values, times and addresses share a fingerprint),
// largest class first, with first and last seen. Each class links to the DLQ
// filtered to it (queue, reason and fingerprint in the hash), where "Retry all
// matching…" and "Purge…" then act on that class only. A class with a
// fingerprint has its auto-redrive switch (autoredrive.js).
import * as api from './api.js';
import {autoredriveCell, loadPolicies} from './autoredrive.js';
import {h, fill, time} from './dom.js';

const GROUPS_SHOWN = 10;

// `filters`: the DLQ view's (queue, reason, tag, error_prefix). Without a
// class selected the panel follows the queue, reason and tag filters; with
// one (a class link sets queue, reason and error_prefix) it shows every class
// of the tag's scope, the selected one marked, so one click switches class.
// `canAct`: the key may change things (an admin): the auto-redrive switches.
export function dlqSummaryPanel(filters, canAct) {
  const body = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  const element = h('section', {class: 'card dlq-summary', 'data-test': 'dlq-summary'},
                    h('h2', {}, 'Why are they dead?'), body);

  async function refresh() {
    const scope = filters.error_prefix || filters.fingerprint
      ? {tag: filters.tag}
      : {queue_name: filters.queue, dead_reason: filters.reason, tag: filters.tag};
    const [groups, policies] = await Promise.all([
      api.get(`/jobs/dlq/summary${api.query({...scope, limit: GROUPS_SHOWN})}`), loadPolicies()]);
    fill(body, groups.length === 0
      ? h('p', {class: 'muted'}, 'No dead jobs match these filters.')
      : groupTable(groups, filters, {policies, canAct, refresh}));
  }
  return {element, refresh};
}

function groupTable(groups, filters, {policies, canAct, refresh}) {
  return h('table', {class: 'grid'},
    h('thead', {}, h('tr', {}, ['Count', 'Queue', 'Dead reason', 'Error class', 'First seen',
                                'Last seen', '', 'Heal'].map((t) => h('th', {}, t)))),
    h('tbody', {}, groups.map((g) => {
      const active = isSelected(g, filters);
      return h('tr', {'data-test': 'dlq-class', class: active ? 'selected' : null,
                      title: g.fingerprint ? `fingerprint ${g.fingerprint}` : null},
        h('td', {class: 'num count'}, String(g.count)),
        h('td', {}, g.queue_name),
        h('td', {}, g.dead_reason || ''),
        h('td', {class: 'error-text'}, errorCell(g)),
        h('td', {'data-test': 'first-seen'}, time(g.first_seen ?? g.oldest_deadlettered_at)),
        h('td', {'data-test': 'last-seen'}, time(g.last_seen ?? g.newest_deadlettered_at)),
        h('td', {}, active
          ? h('span', {class: 'muted'}, 'shown below')
          : h('a', {href: classHash(g, filters), class: 'button', 'data-test': 'show-class'},
              'Select this class')),
        h('td', {'data-test': 'autoredrive'}, g.fingerprint
          ? autoredriveCell(g, policies.get(g.queue_name), canAct, refresh) : null));
    })));
}

// The class's normalized message (numbers, ids, quoted values, times and
// addresses as <n>, <uuid>, <str>, …), then one of its errors when it differs.
function errorCell(g) {
  if (g.error === null) return h('span', {class: 'muted'}, '(no error)');
  const normalized = g.normalized_error ?? g.error;
  return [h('span', {'data-test': 'class-message'}, normalized),
          g.error !== normalized
            ? h('div', {class: 'muted', 'data-test': 'class-example'}, 'e.g. ', g.error) : null];
}

// The DLQ view of one class: its fingerprint selects exactly its jobs
// (error_class only labels the chip and the dialogs). A group without a
// fingerprint (no error, or not fingerprinted yet) is narrowed by its
// error as a prefix, or to its queue and reason only.
export function classHash(group, filters) {
  const which = group.fingerprint
    ? {fingerprint: group.fingerprint, error_class: group.normalized_error ?? ''}
    : {error_prefix: group.error ?? ''};
  return `#/jobs${api.query({
    queue: group.queue_name, status: 'deadletter', reason: group.dead_reason || '',
    tag: filters.tag, ...which})}`;
}

function isSelected(group, filters) {
  const same = group.fingerprint
    ? filters.fingerprint === group.fingerprint
    : filters.error_prefix !== '' && group.error === filters.error_prefix;
  return same && group.queue_name === filters.queue &&
         (group.dead_reason || '') === filters.reason;
}
