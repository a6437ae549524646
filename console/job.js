// One job: its state, retry budget, error, lease, times, history timeline,
// payload, and the actions its status allows (for an admin).
import * as api from './api.js';
import {h, fill, time, statusBadge, tagList} from './dom.js';
import {openDialog, showNotice, busy, showError} from './ui.js';
import {payloadSection} from './payload_editor.js';
import {TARGET_QUEUE_FIELD, targetQueueProblem} from './dlq_actions.js';
import {backoffText, formatDuration} from './durations.js';

const CANCELLABLE = ['pending', 'scheduled', 'processing', 'blocked'];
const RETRYABLE = ['deadletter', 'cancelled'];
const PRIORITY_EDITABLE = ['pending', 'scheduled', 'processing', 'deadletter', 'quarantined',
                           'blocked'];
// The redrive budgets the API takes (see docs/api.md, "budget").
const BUDGETS = [['reset', 'reset: max_retries again'], ['keep', 'keep: only the retries left'],
                 ['extend:1', 'extend:1: one more'], ['extend:3', 'extend:3: three more']];

// `params`: the hash query (workflow: the workflow whose graph linked here).
export function mountJob(main, ctx, id, params) {
  const path = `/jobs/${api.enc(id)}`;
  let payloadBox = null;
  let membership;  // {workflow, key} once known, null if none; a job never changes workflow

  async function refresh() {
    // The payload editor is left alone while the operator is editing.
    if (payloadBox && payloadBox.editing()) return;
    const [job, history, audit] = await Promise.all([api.get(path), api.get(`${path}/history`),
      api.get(`/audit${api.query({target: `job:${id}`, limit: 100})}`)]);
    if (membership === undefined) {
      membership = await workflowOf(job, params?.get('workflow') || job.workflow_id);
    }
    payloadBox = payloadSection(job, ctx, refresh);
    fill(main,
      h('p', {}, h('a', {href: `#/jobs${api.query({queue: job.queue_name, status: job.status})}`},
                   `← ${job.queue_name} / ${job.status}`),
        membership ? [' · ', h('a', {href: `#/workflows/${api.enc(membership.workflow.id)}`,
                                     'data-test': 'workflow-back'},
                               `← workflow ${membership.workflow.name}`)] : null),
      h('h1', {}, 'Job ', h('span', {class: 'mono'}, job.id), ' ', statusBadge(job.status)),
      ctx.canAct ? actionBar(job, path, refresh) : null,
      h('div', {class: 'columns'},
        h('section', {class: 'card'}, h('h2', {}, 'State'), facts(job, membership)),
        h('section', {class: 'card'}, h('h2', {}, 'History'), timeline(history, audit.entries))),
      payloadBox.element);
  }
  return {refresh};
}

// The workflow the job belongs to and its key there, or null. GET /jobs/{id}
// does not name a job's workflow (the workflow routes do), so a job opened
// from a workflow's graph carries the workflow in its address, and the
// workflow's own route confirms the job is one of its (404 if not).
async function workflowOf(job, workflowId) {
  if (!workflowId) return null;
  const wf = `/workflows/${api.enc(workflowId)}`;
  try {
    const [member, workflow] = await Promise.all([api.get(`${wf}/jobs/${api.enc(job.id)}`),
                                                  api.get(wf)]);
    return {workflow, key: member.key, dependencyMode: member.dependency_mode,
            dependsOn: member.depends_on.length};
  } catch (err) {
    if (err.status === 404) return null;  // an address naming another workflow: no link
    throw err;
  }
}

function facts(job, membership) {
  const row = (label, value, cls) => [h('dt', {}, label), h('dd', {class: cls || ''}, value)];
  return h('dl', {class: 'facts', 'data-test': 'facts'},
    row('Status', statusBadge(job.status)),
    membership ? row('Workflow', [
      h('a', {href: `#/workflows/${api.enc(membership.workflow.id)}`, 'data-test': 'workflow-link'},
        membership.workflow.name), ' as ', h('span', {class: 'mono'}, membership.key),
      membership.dependsOn > 0
        ? h('span', {class: 'muted'}, ` (waits for ${membership.dependsOn}, ` +
            `${membership.dependencyMode === 'any' ? 'any one' : 'all'} to complete)`)
        : h('span', {class: 'muted'}, ' (waits for nothing)')]) : null,
    row('Queue', h('a', {href: `#/queues/${api.enc(job.queue_name)}`}, job.queue_name)),
    row('Priority', String(job.priority)),
    row('Attempts', `${job.attempts} (${job.lease_expiries} lost lease)`),
    row('Retry budget', `${job.retry_count} of ${job.max_retries} retries used`),
    row('Backoff', backoffText(job.backoff)),
    row('Timeout', `${formatDuration(job.timeout_seconds * 1000)} per attempt`),
    row('Last error', job.last_error ? h('pre', {class: 'error-text'}, job.last_error) : '—'),
    row('Dead reason', job.dead_reason || '—', job.dead_reason ? 'warn' : ''),
    row('Worker', job.assigned_worker_id || '—'),
    row('Lease', job.lease_id ? [h('span', {class: 'mono'}, job.lease_id), ' expires ',
                                 time(job.lease_expires_at)] : '—'),
    row('Tags', tagList(job.tags)),
    row('Idempotency key', job.idempotency_key || '—'),
    row('Created', time(job.created_at)), row('Updated', time(job.updated_at)),
    row('Scheduled', time(job.scheduled_at)), row('Started', time(job.started_at)),
    row('Finished', time(job.completed_at)), row('Dead since', time(job.deadlettered_at)),
    row('Expires', time(job.expires_at)));
}

// The job's history with the operator actions that touched it (the audit
// log's entries naming the job), oldest first: "job.retry by oncall: 'why'".
function timeline(history, operatorActions) {
  const items = [
    ...history.map((e) => ({at: e.created_at, node: historyItem(e)})),
    ...operatorActions.map((a) => ({at: a.at, node: operatorItem(a)})),
  ].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  if (items.length === 0) return h('p', {class: 'empty'}, 'No history.');
  return h('ol', {class: 'timeline', 'data-test': 'history'}, items.map((i) => i.node));
}

function historyItem(e) {
  return h('li', {class: `event event-${e.event_type}`},
    h('div', {}, h('strong', {}, e.event_type), ' ', time(e.created_at),
      e.worker_id ? h('span', {class: 'muted'}, ` by ${e.worker_id}`) : null),
    detailsList(e.details));
}

function operatorItem(a) {
  const refused = a.status >= 300;
  return h('li', {class: `event event-operator${refused ? ' event-refused' : ''}`,
                  'data-test': 'operator-action'},
    h('div', {}, h('strong', {}, a.action), ' by ', h('strong', {}, a.actor), ' ', time(a.at),
      refused ? h('span', {class: 'muted'}, ` (refused: ${a.status})`) : null),
    a.reason ? h('div', {class: 'reason'}, `“${a.reason}”`) : null);
}

function detailsList(details) {
  const entries = Object.entries(details || {});
  if (entries.length === 0) return null;
  return h('ul', {class: 'event-details'}, entries.map(([k, v]) =>
    h('li', {}, h('span', {class: 'muted'}, `${k}: `),
      typeof v === 'string' ? v : JSON.stringify(v))));
}

// A quarantined job's attempts crashed (lost their lease) crash_limit times:
// releasing it sends it back to pending with its crash count reset.
function releaseButton(job, path, refresh) {
  const b = h('button', {type: 'button', class: 'primary', 'data-test': 'release'}, 'Release');
  b.addEventListener('click', async () => {
    const values = await openDialog({title: 'Release this quarantined job?',
      body: [`Its attempts lost their lease ${job.crash_count} times (crash limit ` +
             `${job.crash_limit}): it may take a worker down again. It goes back to pending ` +
             'now, with its crash count reset.'],
      fields: [{name: 'budget', label: 'Retry budget', type: 'select', value: 'reset',
                options: BUDGETS},
               {...TARGET_QUEUE_FIELD, placeholder: `e.g. ${job.queue_name}-careful`}],
      validate: ({target_queue: target}) => targetQueueProblem(target),
      confirmLabel: 'Release job'});
    if (!values) return;
    await busy(b, 'Release', async () => {
      const body = {budget: values.budget || 'reset'};
      if (values.target_queue.trim() !== '') body.target_queue = values.target_queue.trim();
      const released = await api.post(`${path}/release`, body);
      showNotice(`Job released: it is pending again, in ${released.queue_name}.`);
    });
    refresh().catch((e) => showError(e, 'Refresh'));
  });
  return b;
}

function actionBar(job, path, refresh) {
  const buttons = [];
  if (RETRYABLE.includes(job.status)) {
    const b = h('button', {type: 'button', class: 'primary', 'data-test': 'retry'}, 'Retry');
    b.addEventListener('click', async () => {
      const ok = await openDialog({title: 'Retry this job?',
        body: [`It goes back to pending now, with its retry count reset to 0 ` +
               `(${job.max_retries} retries again) and its history kept.`],
        fields: [{...TARGET_QUEUE_FIELD, placeholder: `e.g. ${job.queue_name}-slow`}],
        validate: ({target_queue: target}) => targetQueueProblem(target),
        confirmLabel: 'Retry job', reason: true});
      if (!ok) return;
      await busy(b, 'Retry', async () => {
        const body = {};
        if (ok.target_queue.trim() !== '') body.target_queue = ok.target_queue.trim();
        const retried = await api.post(`${path}/retry`, body, {reason: ok.reason});
        showNotice(`Job retried: it is pending again, in ${retried.queue_name}.`);
      });
      refresh().catch((e) => showError(e, 'Refresh'));
    });
    buttons.push(b);
  }
  if (job.status === 'quarantined') buttons.push(releaseButton(job, path, refresh));
  if (CANCELLABLE.includes(job.status)) {
    const b = h('button', {type: 'button', class: 'danger', 'data-test': 'cancel'}, 'Cancel');
    b.addEventListener('click', async () => {
      const ok = await openDialog({title: 'Cancel this job?', danger: true,
        body: [job.status === 'processing'
          ? `Worker ${job.assigned_worker_id} holds it: its next heartbeat or result is refused.`
          : 'It will not run. A cancelled job can be retried later.'],
        confirmLabel: 'Cancel job', reason: true});
      if (!ok) return;
      await busy(b, 'Cancel', async () => {
        await api.del(path, {reason: ok.reason});
        showNotice('Job cancelled.');
      });
      refresh().catch((e) => showError(e, 'Refresh'));
    });
    buttons.push(b);
  }
  if (PRIORITY_EDITABLE.includes(job.status)) {
    const b = h('button', {type: 'button', 'data-test': 'priority'}, 'Change priority…');
    b.addEventListener('click', async () => {
      const values = await openDialog({title: 'Change priority',
        body: ['Higher runs first (−100..100).'],
        fields: [{name: 'priority', label: 'Priority', type: 'number', value: job.priority,
                  min: '-100', step: '1'}],
        validate: ({priority}) => (Number.isInteger(Number(priority)) && priority !== '' &&
          Math.abs(Number(priority)) <= 100 ? null : 'A whole number from −100 to 100.'),
        confirmLabel: 'Set priority'});
      if (!values) return;
      await busy(b, 'Priority', async () => {
        const r = await api.put(`${path}/priority`, {priority: Number(values.priority)});
        showNotice(`Priority ${r.old_priority} → ${r.new_priority}.`);
      });
      refresh().catch((e) => showError(e, 'Refresh'));
    });
    buttons.push(b);
  }
  if (buttons.length === 0) return null;
  return h('div', {class: 'actions', 'data-test': 'job-actions'}, buttons);
}
