// The DLQ's actions for an admin: retry the selected rows; retry everything
// matching the filters (a dry run counts first, then a confirmation with an
// optional rate; with a filter, one bulk operation on the server followed by
// a live progress bar with a Cancel button, operation_progress.js; with no
// filter, every dead job, a page of 1000 per request);
// purge everything matching the filters (a dry run counts first, then typing
// the queue name or the count). Retry and purge honour every filter: queue,
// dead reason, tag and error class (filters.error_prefix). A selection that
// matches nothing says so and lists the closest error classes.
import * as api from './api.js';
import {h} from './dom.js';
import {openDialog, showNotice, busy} from './ui.js';

// The optional "into another queue" field of a redrive (the API's
// target_queue): e.g. a payments-slow queue served by one careful worker.
export const TARGET_QUEUE_FIELD = {
  name: 'target_queue', label: 'Into queue (optional: empty keeps each job in its own)',
  placeholder: 'e.g. payments-slow'};

// Why `name` cannot be a target queue (the API's queue-name rule), or null.
export function targetQueueProblem(name) {
  const n = (name ?? '').trim();
  if (n === '' || /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/.test(n)) return null;
  return 'A queue name is 1-100 characters of A-Z a-z 0-9 . _ -, not starting with . or -.';
}
import {formatDuration} from './durations.js';
import {classHash} from './dlq_summary.js';
import {followOperation} from './operation_progress.js';

const PAGE = 1000;  // the server's limit per retry request
const MAX_PURGE = 10000;  // the server's limit per purge request

export function dlqActionBar(filters, selected, refresh) {
  const retrySelected = h('button', {type: 'button', 'data-test': 'retry-selected'}, '');
  const retryMatching = h('button', {type: 'button', 'data-test': 'retry-matching'},
                          'Retry all matching…');
  const purge = h('button', {type: 'button', class: 'danger', 'data-test': 'purge'}, 'Purge…');
  const progress = h('div', {class: 'operations', 'data-test': 'operations'});
  const element = h('div', {class: 'actions'}, retrySelected, retryMatching, purge, progress);

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
      api.post('/jobs/dlq/retry', {...selection, limit: PAGE, dry_run: true}));
    if (!counted) return;
    const n = counted.matched_count;
    const scope = describe(filters);
    if (n === 0) {
      await noMatch('Nothing to retry', `No dead jobs match ${scope}.`, counted, filters);
      return;
    }
    const values = await openDialog({
      title: `Retry ${n} dead job${n === 1 ? '' : 's'}?`,
      body: [h('p', {'data-test': 'matched-count'},
               `${n} dead jobs match ${scope}. All ${n} are retried, the oldest dead first` +
               `${n > PAGE ? `, in requests of ${PAGE}` : ''}.`),
             'Without a rate they all become pending at once. With a rate, they are spread ' +
             'out so the replay does not overload whatever made them fail; a queue\'s ' +
             'throttled redrives share the rate (this one starts after the last job of an ' +
             'earlier one).'],
      fields: [{name: 'rate', label: 'Rate (jobs per second, optional)', type: 'number',
                min: '0', step: 'any', placeholder: 'e.g. 5'},
               TARGET_QUEUE_FIELD],
      validate: ({rate, target_queue: target}) =>
        (rate !== '' && !(Number(rate) > 0) ? 'The rate must be above 0.'
                                            : targetQueueProblem(target)),
      confirmLabel: `Retry ${n}`});
    if (!values) return;
    const body = {...selection};
    if (values.rate !== '') body.rate_per_second = Number(values.rate);
    if (values.target_queue.trim() !== '') body.target_queue = values.target_queue.trim();
    if (hasFilter(filters)) {
      // A server-side operation: any number of jobs, in batches, with a live bar.
      const op = {action: 'retry', selector: selection};
      if (body.rate_per_second) op.rate_per_second = body.rate_per_second;
      if (body.target_queue) op.target_queue = body.target_queue;
      await runOperation(retryMatching, progress, op, 'retried', refresh);
      return;
    }
    await busy(retryMatching, 'Retry all matching', async () => {
      const done = await retryAll(body, n, (k) => {
        retryMatching.textContent = `Retrying… ${k} of ${n}`;
      });
      const due = done.lastDue ? Date.parse(done.lastDue) - Date.now() : 0;
      // Whole seconds, as the CLI says it ("in 13m20s").
      const spread = due > 0
        ? `; the last is due in ${formatDuration(Math.ceil(due / 1000) * 1000)}` : '';
      showNotice(`Retried ${done.retried} of ${n} matching jobs${spread}.`);
    }).finally(() => { retryMatching.textContent = 'Retry all matching…'; });
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
      await noMatch('Nothing to purge', `There are no dead jobs of ${where}.`, counted, filters);
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
    if (hasFilter(filters)) {
      await runOperation(purge, progress, {action: 'purge', selector: selectionOf(filters)},
                         'purged', refresh);
      return;
    }
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

// Retries the `n` jobs the dry run counted, a page per request (retried
// jobs leave the DLQ, so each page is the next), never more than `n`.
async function retryAll(body, n, progress) {
  let retried = 0;
  let lastDue = null;
  while (retried < n) {
    const r = await api.post('/jobs/dlq/retry', {...body, limit: Math.min(PAGE, n - retried)});
    if (r.retried_count === 0) break;
    retried += r.retried_count;
    lastDue = r.last_due_at || lastDue;
    progress(retried);
  }
  return {retried, lastDue};
}

function hasFilter(filters) {
  return Boolean(filters.queue || filters.reason || filters.tag || filters.error_prefix);
}

// Creates the operation (POST /operations), follows it with a progress bar
// and a Cancel button, then says how it ended and refreshes the table.
async function runOperation(button, container, body, verb, refresh) {
  const created = await busy(button, button.textContent, () => api.post('/operations', body));
  if (!created) return;
  const op = await followOperation(container, created, verb);
  const how = op.state === 'completed' ? 'Done' : `Operation ${op.state}`;
  showNotice(`${how}: ${verb} ${op.done} of ${op.matched} matching jobs.`);
  await refresh();
}

// "Nothing matches", with the closest error classes the server found (each
// links to the DLQ narrowed to it).
async function noMatch(title, text, answer, filters) {
  const classes = answer.closest_classes || [];
  const body = [h('p', {'data-test': 'no-match'}, text)];
  if (classes.length) {
    body.push(h('p', {}, 'The closest error classes in the DLQ:'),
      h('ul', {class: 'closest', 'data-test': 'closest-classes'}, classes.map((g) =>
        h('li', {},
          h('a', {href: classHash(g, filters), 'data-test': 'closest-class',
                  onclick: () => document.querySelector('#dialog button[value=cancel]').click()},
            `${g.count} × ${g.queue_name} · ${g.dead_reason || '—'} · `,
            g.error === null ? h('span', {class: 'muted'}, '(no error)')
                             : h('span', {class: 'error-text'}, g.error))))));
  }
  await openDialog({title, body, confirmLabel: 'OK'});
}

// An error class in words: its normalized message, else its fingerprint.
function classText(filters) {
  return filters.error_class || filters.fingerprint;
}

// The request fields that select the dead jobs the filters show.
function selectionOf(filters) {
  return {queue_name: filters.queue || undefined, dead_reason: filters.reason || undefined,
          tag: filters.tag || undefined, error_prefix: filters.error_prefix || undefined,
          fingerprint: filters.fingerprint || undefined};
}

// What a purge with these filters deletes, every active filter named:
// "queue payments whose reason is non_retryable, tagged env=prod".
function purgeScope(filters) {
  const clauses = [];
  if (filters.reason) clauses.push(`whose reason is ${filters.reason}`);
  if (filters.tag) clauses.push(`tagged ${filters.tag}`);
  if (filters.error_prefix) clauses.push(`whose error starts with “${filters.error_prefix}”`);
  if (filters.fingerprint) clauses.push(`whose error is of class “${classText(filters)}”`);
  const queue = filters.queue ? `queue ${filters.queue}` : 'every queue';
  return clauses.length ? `${queue} ${clauses.join(', ')}` : queue;
}

function describe(filters) {
  const parts = [];
  if (filters.queue) parts.push(`queue ${filters.queue}`);
  if (filters.reason) parts.push(`reason ${filters.reason}`);
  if (filters.tag) parts.push(`tag ${filters.tag}`);
  if (filters.error_prefix) parts.push(`error starting with “${filters.error_prefix}”`);
  if (filters.fingerprint) parts.push(`error class “${classText(filters)}”`);
  return parts.length ? parts.join(', ') : 'all queues';
}
