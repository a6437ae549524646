// One workflow: its status and counts, Cancel and Retry (admin), and its
// jobs as a graph (dag.js): a node per job coloured by its status, each a
// link to the job's page; past MAX_DRAWN_NODES jobs, counts per layer and
// the jobs that failed instead.
import * as api from './api.js';
import {h, fill, time, statusBadge, shortId} from './dom.js';
import {openDialog, showNotice, showError, busy} from './ui.js';
import {dagLayout, dagDrawing, layerSummary, statusLegend, jobHref,
        MAX_DRAWN_NODES} from './dag.js';

const JOBS_PAGE = 1000;  // the most GET /workflows/{id}/jobs answers at once
const UNFINISHED = ['pending', 'scheduled', 'processing', 'blocked'];
const FAILED = ['deadletter', 'quarantined'];
const ATTENTION_SHOWN = 50;

// Every page of a workflow's jobs (at most 10,000: ten pages).
async function allPages(path) {
  const rows = [];
  for (let offset = 0; ; offset += JOBS_PAGE) {
    const page = await api.get(`${path}${api.query({limit: JOBS_PAGE, offset})}`);
    rows.push(...page);
    if (page.length < JOBS_PAGE) return rows;
  }
}

export function mountWorkflow(main, ctx, id) {
  const path = `/workflows/${api.enc(id)}`;
  const hrefOf = jobHref(id);
  // The graph's shape (keys, dependencies) is fixed when the workflow is
  // created, so it is read and laid out once: a refresh reads only the
  // statuses (GET …/jobs/status, no payloads), and reads the shape again
  // only when the jobs are no longer the same (retention deleted some).
  let jobs = null;
  let layout = null;
  let drawn = '';  // the statuses the graph was last drawn with
  const head = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  const factsBox = h('section', {class: 'card', 'data-test': 'workflow-facts'});
  const graphBox = h('section', {class: 'card dag-card'});
  fill(main, head, factsBox, graphBox);

  async function refresh() {
    const [w, statuses] = await Promise.all([
      api.get(path), jobs ? allPages(`${path}/jobs/status`) : null]);
    const statusById = new Map();
    if (!jobs || !sameJobs(jobs, statuses)) {
      jobs = await allPages(`${path}/jobs`);
      layout = dagLayout(jobs);
      drawn = '';
      for (const j of jobs) statusById.set(j.id, j.status);
    } else {
      for (const s of statuses) statusById.set(s.job_id, s.status);
    }
    const statusOf = (jobId) => statusById.get(jobId);
    fill(head,
      h('p', {}, h('a', {href: '#/workflows'}, '← Workflows')),
      h('h1', {}, 'Workflow ', h('span', {'data-test': 'workflow-name'}, w.name), ' ',
        h('span', {'data-test': 'workflow-status'}, statusBadge(w.status))),
      ctx.canAct ? actionBar(w, path, refresh) : null);
    fill(factsBox, h('h2', {}, 'State'), facts(w));
    // Redrawn only when a status changed: a poll that changed nothing keeps
    // the operator's scroll position and hover.
    const now = jobs.map((j) => statusOf(j.id)).join(',');
    if (now !== drawn) {
      drawn = now;
      fill(graphBox, graph(jobs, layout, statusOf, hrefOf));
    }
  }
  return {refresh};
}

function sameJobs(jobs, statuses) {
  if (jobs.length !== statuses.length) return false;
  return statuses.every((s, i) => s.job_id === jobs[i].id);
}

function graph(jobs, layout, statusOf, hrefOf) {
  const title = h('h2', {}, 'Jobs');
  if (jobs.length === 0) {
    return [title, h('p', {class: 'empty'}, 'This workflow has no jobs left.')];
  }
  // The legend counts what is drawn (the same read as the nodes).
  const counts = {};
  for (const j of jobs) counts[statusOf(j.id)] = (counts[statusOf(j.id)] || 0) + 1;
  const shape = `${jobs.length} jobs in ${layout.layers.length} ` +
                `layer${layout.layers.length === 1 ? '' : 's'}, ${layout.edges.length} ` +
                `dependenc${layout.edges.length === 1 ? 'y' : 'ies'}`;
  if (jobs.length <= MAX_DRAWN_NODES) {
    return [title,
      h('p', {class: 'muted'}, `${shape}. A layer is the longest chain of dependencies ` +
        'before its jobs; each job waits for the jobs with an arrow to it. Click a job to ' +
        'open it.'),
      statusLegend(counts),
      h('div', {class: 'dag-scroll'}, dagDrawing(layout, jobs, statusOf, hrefOf))];
  }
  return [title,
    h('p', {class: 'notice-inline', 'data-test': 'dag-summarized'},
      `${shape}: more than ${MAX_DRAWN_NODES} jobs are not drawn one by one. Each layer's jobs ` +
      'are counted by status instead (a layer is the longest chain of dependencies before ' +
      'its jobs).'),
    statusLegend(counts),
    layerSummary(layout, statusOf),
    attentionList(jobs, layout, statusOf, hrefOf)];
}

// The failed jobs of a workflow too large to draw, so each is a click away.
function attentionList(jobs, layout, statusOf, hrefOf) {
  const failed = jobs.filter((j) => FAILED.includes(statusOf(j.id)));
  if (failed.length === 0) return null;
  return h('div', {'data-test': 'failed-jobs'},
    h('h3', {}, `Failed jobs (${failed.length})`),
    h('table', {class: 'grid'},
      h('thead', {}, h('tr', {}, ['Key', 'Job', 'Layer', 'Status', 'Queue'].map((t) =>
        h('th', {}, t)))),
      h('tbody', {}, failed.slice(0, ATTENTION_SHOWN).map((j) => h('tr', {'data-id': j.id},
        h('td', {}, h('a', {href: hrefOf(j.id)}, j.key)),
        h('td', {}, h('a', {href: hrefOf(j.id), class: 'mono', title: j.id}, shortId(j.id))),
        h('td', {class: 'num'}, String(layout.layerOf.get(j.id) + 1)),
        h('td', {}, statusBadge(statusOf(j.id))),
        h('td', {}, j.queue_name))))),
    failed.length > ATTENTION_SHOWN
      ? h('p', {class: 'muted'}, `The first ${ATTENTION_SHOWN}, in definition order.`) : null);
}

function facts(w) {
  const row = (label, value, test) => [h('dt', {}, label),
                                       h('dd', {'data-test': test || null}, value)];
  const unfinished = UNFINISHED.reduce((n, s) => n + (w.counts[s] || 0), 0);
  return h('dl', {class: 'facts'},
    row('Status', statusBadge(w.status)),
    row('Progress', `${w.completed_jobs} of ${w.total_jobs} jobs completed ` +
                    `(${Math.floor(w.progress_percent)}%)`, 'progress'),
    row('Failed', `${w.failed_jobs} dead-lettered or quarantined`, 'failed-jobs-count'),
    row('Unfinished', String(unfinished)),
    w.description ? row('Description', w.description) : null,
    row('Created', time(w.created_at)), row('Started', time(w.started_at)),
    row('Finished', time(w.completed_at)),
    Object.keys(w.metadata || {}).length
      ? row('Metadata', h('pre', {class: 'payload'}, JSON.stringify(w.metadata, null, 2))) : null,
    row('Id', h('span', {class: 'mono'}, w.id)));
}

const jobCount = (n, what) => `${n} ${what} job${n === 1 ? '' : 's'}`;

// What the server's retry does to these counts: the dead-lettered and
// cancelled jobs run again, the quarantined ones are released.
function retryText(c) {
  const redriven = c.deadletter + c.cancelled;
  const parts = [];
  if (redriven > 0) {
    const which = [[c.deadletter, 'dead-lettered'], [c.cancelled, 'cancelled']]
      .filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}`).join(' and ');
    parts.push(`Its ${which} job${redriven === 1 ? ' goes' : 's go'} back to run with a full ` +
               'retry budget.');
  }
  if (c.quarantined > 0) {
    parts.push(`Its ${jobCount(c.quarantined, 'quarantined')} ` +
               `${c.quarantined === 1 ? 'is' : 'are'} released.`);
  }
  parts.push('A job whose dependencies have not completed waits again (blocked).');
  return parts.join(' ');
}

// Cancel while a job is unfinished (the server answers 409 otherwise);
// Retry once the workflow failed or was cancelled (the only statuses the
// server retries).
function actionBar(w, path, refresh) {
  const c = w.counts;
  const unfinished = UNFINISHED.reduce((n, s) => n + (c[s] || 0), 0);
  const after = () => refresh().catch((e) => showError(e, 'Refresh'));
  const buttons = [];
  if (w.status === 'failed' || w.status === 'cancelled') {
    const b = h('button', {type: 'button', class: 'primary', 'data-test': 'retry'}, 'Retry');
    b.addEventListener('click', async () => {
      const ok = await openDialog({title: `Retry workflow “${w.name}”?`,
        body: [retryText(c)],
        confirmLabel: 'Retry workflow', reason: true});
      if (!ok) return;
      await busy(b, 'Retry', async () => {
        const r = await api.post(`${path}/retry`, {}, {reason: ok.reason});
        showNotice(`Workflow ${r.name} retried: it is ${r.status} again.`);
      });
      after();
    });
    buttons.push(b);
  }
  if (unfinished > 0) {
    const b = h('button', {type: 'button', class: 'danger', 'data-test': 'cancel'}, 'Cancel');
    b.addEventListener('click', async () => {
      const ok = await openDialog({title: `Cancel workflow “${w.name}”?`, danger: true,
        body: [`Its ${jobCount(unfinished, 'unfinished')} will not run` +
               (c.processing ? `; the workers of its ${c.processing} processing jobs are ` +
                               'refused at their next heartbeat or result' : '') +
               '. Its completed jobs stay completed. A cancelled workflow can be retried later.'],
        confirmLabel: 'Cancel workflow', reason: true});
      if (!ok) return;
      await busy(b, 'Cancel', async () => {
        const r = await api.post(`${path}/cancel`, {}, {reason: ok.reason});
        showNotice(`Workflow ${r.name} cancelled: ${r.counts.cancelled} of its jobs are ` +
                   'cancelled.');
      });
      after();
    });
    buttons.push(b);
  }
  if (buttons.length === 0) return null;
  return h('div', {class: 'actions', 'data-test': 'workflow-actions'}, buttons);
}
