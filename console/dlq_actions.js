// The DLQ's actions for an admin: retry the selected rows; retry everything
// matching the filters (a dry run counts first, then a confirmation with an
// optional rate); purge everything matching the filters (a dry run counts
// first, then typing the queue name or the count). Retry and purge honour
// every filter: queue, dead reason, tag and error class (filters.error_prefix).
import * as api from './api.js';
import {h} from './dom.js';
import {openDialog, showNotice, busy} from './ui.js';

const MAX_BATCH = 1000;  // the server's limit per retry request
const MAX_PURGE = 10000;  // the server's limit per purge request

export function dlqActionBar(filters, selected, refresh) {
  const retrySelected = h('button', {type: 'button', 'data-test': 'retry-selected'}, '');
  const retryMatching = h('button', {type: 'button', 'data-test': 'retry-matching'},
                          'Retry all matching…');
  const purge = h('button', {type: 'button', class: 'danger', 'data-test': 'purge'}, 'Purge…');
  const element = h('div', {class: 'actions'}, retrySelected, retryMatching, purge);

  const update = () => {
    retrySelected.textContent = `Retry selected (${selected.size})`;
    retrySelected.disabled = selected.size === 0;
  };

  retrySelected.addEventListener('click', async () => {
    const ids = [...selected];
    const ok = await openDialog({
      title: `Retry ${ids.length} selected job${ids.length === 1 ? '' : 's'}?`,
      body: ['They go back to pending now, with their retry count reset and their history kept. ' +
             'Jobs that are no longer dead are skipped.'],
      confirmLabel: `Retry ${ids.length}`});
    if (!ok) return;
    await busy(retrySelected, 'Retry selected', async () => {
      const r = await api.post('/jobs/dlq/retry', {job_ids: ids, limit: ids.length});
      selected.clear();
      showNotice(`Retried ${r.retried_count} job${r.retried_count === 1 ? '' : 's'}.`);
    });
    await refresh();
  });

  retryMatching.addEventListener('click', async () => {
    const selection = selectionOf(filters);
    const counted = await busy(retryMatching, 'Dry run', () =>
      api.post('/jobs/dlq/retry', {...selection, limit: MAX_BATCH, dry_run: true}));
    if (!counted) return;
    const n = counted.matched_count;
    const scope = describe(filters);
    if (n === 0) {
      await openDialog({title: 'Nothing to retry', body: [`No dead jobs match ${scope}.`],
                        confirmLabel: 'OK'});
      return;
    }
    const values = await openDialog({
      title: `Retry ${n} dead job${n === 1 ? '' : 's'}?`,
      body: [h('p', {'data-test': 'matched-count'},
               `${n}${n === MAX_BATCH ? ' (the most one request retries)' : ''} dead jobs match ` +
               `${scope}. The oldest dead go first.`),
             'Without a rate they all become pending at once. With a rate, they are spread ' +
             'out so the replay does not overload whatever made them fail.'],
      fields: [{name: 'rate', label: 'Rate (jobs per second, optional)', type: 'number',
                min: '0', step: 'any', placeholder: 'e.g. 5'}],
      validate: ({rate}) => (rate !== '' && !(Number(rate) > 0) ? 'The rate must be above 0.' : null),
      confirmLabel: `Retry ${n}`});
    if (!values) return;
    const body = {...selection, limit: MAX_BATCH};
    if (values.rate !== '') body.rate_per_second = Number(values.rate);
    await busy(retryMatching, 'Retry all matching', async () => {
      const r = await api.post('/jobs/dlq/retry', body);
      const spread = body.rate_per_second
        ? ` over about ${Math.ceil(r.retried_count / body.rate_per_second)} s` : '';
      showNotice(`Retried ${r.retried_count} jobs${spread}.`);
    });
    await refresh();
  });

  purge.addEventListener('click', async () => {
    // The same body counts (dry run) and purges: the count shown is exact.
    const selection = {confirm: true, ...selectionOf(filters)};
    const counted = await busy(purge, 'Count', () =>
      api.post('/jobs/dlq/purge', {...selection, dry_run: true}));
    if (!counted) return;
    const n = counted.matched_count;
    const where = purgeScope(filters);
    if (n === 0) {
      await openDialog({title: 'Nothing to purge', body: [`There are no dead jobs of ${where}.`],
                        confirmLabel: 'OK'});
      return;
    }
    const ok = await openDialog({
      title: `Permanently delete ${n} dead job${n === 1 ? '' : 's'}?`,
      body: [h('p', {'data-test': 'purge-summary'},
               `This deletes all ${n}${n === MAX_PURGE ? ' (the most one purge deletes)' : ''} ` +
               `dead jobs of ${where}, with their payloads and history. It cannot be undone.`)],
      typeToConfirm: filters.queue || String(n),
      danger: true, confirmLabel: `Delete ${n} jobs`});
    if (!ok) return;
    await busy(purge, 'Purge', async () => {
      // Never more than the count confirmed, even if more jobs died meanwhile.
      const r = await api.post('/jobs/dlq/purge', {...selection, limit: n});
      showNotice(`Purged ${r.purged_count} dead jobs.`);
    });
    await refresh();
  });

  update();
  return {element, update};
}

// The request fields that select the dead jobs the filters show.
function selectionOf(filters) {
  return {queue_name: filters.queue || undefined, dead_reason: filters.reason || undefined,
          tag: filters.tag || undefined, error_prefix: filters.error_prefix || undefined};
}

// What a purge with these filters deletes, every active filter named:
// "queue payments whose reason is non_retryable, tagged env=prod".
function purgeScope(filters) {
  const clauses = [];
  if (filters.reason) clauses.push(`whose reason is ${filters.reason}`);
  if (filters.tag) clauses.push(`tagged ${filters.tag}`);
  if (filters.error_prefix) clauses.push(`whose error starts with “${filters.error_prefix}”`);
  const queue = filters.queue ? `queue ${filters.queue}` : 'every queue';
  return clauses.length ? `${queue} ${clauses.join(', ')}` : queue;
}

function describe(filters) {
  const parts = [];
  if (filters.queue) parts.push(`queue ${filters.queue}`);
  if (filters.reason) parts.push(`reason ${filters.reason}`);
  if (filters.tag) parts.push(`tag ${filters.tag}`);
  if (filters.error_prefix) parts.push(`error starting with “${filters.error_prefix}”`);
  return parts.length ? parts.join(', ') : 'all queues';
}
