// The console's Workflows pages in a real browser against a real `redrive
// serve`: a fan-out/fan-in workflow created through the API is listed and
// drawn as a graph (a node per job in its status colour, an edge per
// dependency); completing its root through the API unblocks the fan-out on
// the next refresh; a dead-lettered job makes it failed and Retry in the
// console redrives it; a node opens its job, whose page links back; another
// workflow is cancelled. A workflow too large to draw is summarised per
// layer; a viewer reads the pages without actions.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {setUp} from './support/fixture.js';
import {screenshot, notice, assertNoStrayValues} from './support/browser.js';

const node = (page, key) => page.locator(`svg[data-test=dag] a.dag-node[data-key="${key}"]`);
const workflowRow = (page, name) =>
  page.locator(`table[data-test=workflows] tr[data-name="${name}"]`);
const classOf = (locator) => locator.getAttribute('class');

// Each job's status class as drawn, by key.
async function drawnStatuses(page) {
  return page.locator('svg[data-test=dag] a.dag-node').evaluateAll((nodes) =>
    Object.fromEntries(nodes.map((n) => [n.dataset.key,
      [...n.classList].find((c) => c.startsWith('status-'))])));
}

// The edges drawn, as "from-key→to-key", sorted.
async function drawnEdges(page, keyOf) {
  const pairs = await page.locator('svg[data-test=dag] path.dag-edge').evaluateAll((paths) =>
    paths.map((p) => [p.dataset.from, p.dataset.to]));
  return pairs.map(([from, to]) => `${keyOf[from]}→${keyOf[to]}`).sort();
}

// root → a, b, c → join: every job in `queue`, none retried (a failure
// dead-letters it at once).
async function fanOutFanIn(api, name, queue) {
  const job = (key, dependsOn = []) =>
    ({key, queue_name: queue, payload: {step: key}, depends_on: dependsOn, max_retries: 0});
  const created = await api.post('/workflows', {name, description: 'fan-out, fan-in',
    jobs: [job('root'), job('a', ['root']), job('b', ['root']), job('c', ['root']),
           job('join', ['a', 'b', 'c'])]});
  const idOf = Object.fromEntries(created.job_ids.map((j) => [j.key, j.job_id]));
  const keyOf = Object.fromEntries(created.job_ids.map((j) => [j.job_id, j.key]));
  return {id: created.workflow_id, idOf, keyOf};
}

test('admin: list, the graph, completions and a failure redrawn, retry, a node and back, cancel',
     async (t) => {
  const {server, api, browser, page} = await setUp(t);
  const fan = await fanOutFanIn(api, 'nightly etl', 'etl');
  const other = await api.post('/workflows', {name: 'reindex', jobs: [
    {key: 'scan', queue_name: 'search', payload: {}},
    {key: 'swap', queue_name: 'search', payload: {}, depends_on: ['scan']}]});

  // The list: both, pending, with their counts.
  await page.goto(`${server.url}/`);
  await page.click('nav a[data-nav=workflows]');
  await page.locator('h1', {hasText: 'Workflows'}).waitFor();
  assert.ok(await page.locator('nav a[data-nav=workflows]').evaluate((a) =>
    a.classList.contains('active')));
  const row = workflowRow(page, 'nightly etl');
  await row.waitFor();
  assert.equal(await page.locator('table[data-test=workflows] tbody tr').count(), 2);
  assert.equal(await row.getAttribute('data-status'), 'pending');
  assert.equal(await row.locator('.badge').innerText(), 'pending');
  assert.ok((await classOf(row.locator('.badge'))).includes('status-pending'));
  assert.equal(await row.locator('[data-test=total]').innerText(), '5');
  assert.equal(await row.locator('[data-test=completed]').innerText(), '0');
  assert.equal(await row.locator('[data-test=finished]').innerText(), '—');
  await assertNoStrayValues(page);
  await screenshot(page, 'workflows-list');

  // The graph: one node per job, labelled by its key, in its status's
  // colour class; one edge per dependency; root, fan-out and join in three
  // layers left to right.
  await row.locator('a.workflow-name').click();
  await node(page, 'join').waitFor();
  assert.equal(await page.locator('[data-test=workflow-name]').innerText(), 'nightly etl');
  assert.deepEqual(await drawnStatuses(page), {root: 'status-pending', a: 'status-blocked',
    b: 'status-blocked', c: 'status-blocked', join: 'status-blocked'});
  assert.deepEqual(await drawnEdges(page, fan.keyOf),
                   ['a→join', 'b→join', 'c→join', 'root→a', 'root→b', 'root→c']);
  const x = async (key) => Number(await node(page, key).locator('rect').getAttribute('x'));
  assert.ok(await x('root') < await x('a'));
  assert.equal(await x('a'), await x('b'));
  assert.equal(await x('b'), await x('c'));
  assert.ok(await x('c') < await x('join'));
  assert.match(await node(page, 'b').locator('text.dag-key').textContent(), /^b$/);
  assert.equal(await node(page, 'b').getAttribute('href'),
               `#/jobs/${fan.idOf.b}?workflow=${fan.id}`);
  assert.match(await page.locator('[data-test=progress]').innerText(), /0 of 5 jobs completed/);
  // Nothing failed or finished yet: only Cancel.
  assert.equal(await page.locator('[data-test=retry]').count(), 0);
  assert.equal(await page.locator('[data-test=cancel]').count(), 1);
  await assertNoStrayValues(page);
  await screenshot(page, 'workflow-graph-pending');

  // The root completes (a worker, through the API): on the next refresh its
  // node is completed, the fan-out pending and the root's edges solid.
  const root = await api.completeNext('etl');
  assert.equal(root.id, fan.idOf.root, 'only the root was claimable');
  await node(page, 'root').and(page.locator('.status-completed')).waitFor({timeout: 15000});
  assert.deepEqual(await drawnStatuses(page), {root: 'status-completed', a: 'status-pending',
    b: 'status-pending', c: 'status-pending', join: 'status-blocked'});
  assert.equal(await page.locator('path.dag-edge.done').count(), 3);
  assert.equal(await page.locator('[data-test=workflow-status] .badge').innerText(), 'running');

  // One of the fan-out fails for good: dead-lettered, the workflow failed.
  const dead = await api.failNext('etl', 'upstream 503');
  const deadKey = fan.keyOf[dead.id];
  await page.locator('[data-test=workflow-status] .badge.status-failed').waitFor({timeout: 15000});
  assert.ok((await classOf(node(page, deadKey))).includes('status-deadletter'));
  assert.ok((await classOf(node(page, 'join'))).includes('status-blocked'));
  assert.match(await page.locator('[data-test=failed-jobs-count]').innerText(), /^1 /);
  await assertNoStrayValues(page);
  await screenshot(page, 'workflow-graph-failed');

  // Retry in the console (with a reason, kept in the audit log): the dead
  // job runs again, the workflow is running again.
  await page.click('[data-test=retry]');
  await page.locator('dialog h2', {hasText: 'Retry workflow “nightly etl”?'}).waitFor();
  assert.match(await page.locator('dialog').innerText(),
               /Its 1 dead-lettered job goes back to run with a full retry budget\./);
  await page.fill('[data-test=field-reason]', 'upstream fixed');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Workflow nightly etl retried: it is running again.');
  await node(page, deadKey).and(page.locator('.status-pending')).waitFor();
  assert.equal(await page.locator('[data-test=retry]').count(), 0);
  assert.equal((await api.get(`/jobs/${dead.id}`)).status, 'pending');
  assert.equal((await api.get(`/workflows/${fan.id}`)).status, 'running');
  const audit = await api.get('/audit?action=workflow.retry');
  assert.equal(audit.entries.length, 1);
  assert.equal(audit.entries[0].reason, 'upstream fixed');

  // A node is a link to its job, whose page links back to the workflow.
  await node(page, 'join').click();
  await page.locator('h1', {hasText: fan.idOf.join}).waitFor();
  const link = page.locator('[data-test=workflow-link]');
  assert.equal(await link.innerText(), 'nightly etl');
  assert.match(await page.locator('[data-test=facts]').innerText(),
               /nightly etl as join \(waits for 3, all to complete\)/);
  await assertNoStrayValues(page);
  await screenshot(page, 'workflow-job');
  await link.click();
  await node(page, 'join').waitFor();
  assert.equal(new URL(page.url()).hash, `#/workflows/${fan.id}`);

  // An address naming a workflow the job is not part of shows no link.
  await page.goto(`${server.url}/#/jobs/${fan.idOf.root}?workflow=${other.workflow_id}`);
  await page.locator('h1', {hasText: fan.idOf.root}).waitFor();
  await page.locator('[data-test=facts]').waitFor();
  assert.equal(await page.locator('[data-test=workflow-link]').count(), 0);

  // Cancel the other workflow: its jobs are cancelled, it is listed so.
  await page.goto(`${server.url}/#/workflows`);
  await workflowRow(page, 'reindex').locator('a.workflow-name').click();
  await page.locator('[data-test=workflow-name]', {hasText: 'reindex'}).waitFor();
  await page.click('[data-test=cancel]');
  await page.locator('dialog h2', {hasText: 'Cancel workflow “reindex”?'}).waitFor();
  assert.match(await page.locator('dialog').innerText(), /Its 2 unfinished jobs will not run/);
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Workflow reindex cancelled: 2 of its jobs are cancelled.');
  await page.locator('[data-test=workflow-status] .badge.status-cancelled').waitFor();
  assert.deepEqual(await drawnStatuses(page), {scan: 'status-cancelled', swap: 'status-cancelled'});
  assert.equal(await page.locator('[data-test=cancel]').count(), 0);
  assert.equal(await page.locator('[data-test=retry]').count(), 1, 'a cancelled one can retry');
  await screenshot(page, 'workflow-cancelled');

  // The list filtered by status.
  await page.goto(`${server.url}/#/workflows`);
  await workflowRow(page, 'reindex').waitFor();
  await page.selectOption('[data-test=filter-status]', 'cancelled');
  await page.waitForURL(/#\/workflows\?status=cancelled$/);
  await page.locator('table[data-test=workflows] tbody tr').first().waitFor();
  assert.equal(await page.locator('table[data-test=workflows] tbody tr').count(), 1);
  assert.equal(await workflowRow(page, 'reindex').getAttribute('data-status'), 'cancelled');
  await page.selectOption('[data-test=filter-status]', 'completed');
  await page.locator('p.empty', {hasText: 'No completed workflows.'}).waitFor();
  await assertNoStrayValues(page);
  assert.deepEqual(browser.errors.filter((e) => !/status of 404/.test(e)), [],
                   'no console errors but the 404 of the job in the wrong workflow');
});

test('a workflow too large to draw is counted per layer; a viewer has no actions', async (t) => {
  const {server, api, browser, page} = await setUp(t, {
    apiKeys: ['admin:adm-secret', 'viewer:view-secret'], key: 'adm-secret'});
  const WIDTH = 400;
  const jobs = [{key: 'split', queue_name: 'bulk', payload: {}, max_retries: 0}];
  for (let i = 0; i < WIDTH; i++) {
    jobs.push({key: `part-${i}`, queue_name: 'bulk', payload: {}, depends_on: ['split'],
               max_retries: 0});
  }
  jobs.push({key: 'merge', queue_name: 'bulk', payload: {},
             depends_on: jobs.slice(1).map((j) => j.key)});
  const created = await api.post('/workflows', {name: 'bulk import', jobs});
  await api.completeNext('bulk');
  const dead = await api.failNext('bulk', 'bad row');

  await page.goto(`${server.url}/#/workflows/${created.workflow_id}`);
  await page.fill('[data-test=api-key]', 'view-secret');
  await page.click('[data-test=signin] button[type=submit]');
  const summary = page.locator('table[data-test=layer-summary]');
  await summary.waitFor();
  assert.match(await page.locator('[data-test=dag-summarized]').innerText(),
               /402 jobs in 3 layers, 800 dependencies: more than 300 jobs are not drawn/);
  assert.equal(await page.locator('svg[data-test=dag]').count(), 0, 'no node drawn');
  const layer = (n) => summary.locator(`tr[data-layer="${n}"]`);
  assert.equal(await summary.locator('tbody tr').count(), 3);
  const counts = (n) => layer(n).locator('.layer-count').evaluateAll((spans) =>
    Object.fromEntries(spans.map((s) => [s.dataset.status, Number(s.querySelector('strong')
                                                                    .textContent)])));
  assert.deepEqual(await counts(0), {completed: 1});
  assert.deepEqual(await counts(1), {pending: WIDTH - 1, deadletter: 1});
  assert.deepEqual(await counts(2), {blocked: 1});
  // The failed job is listed, a link to it.
  const failed = page.locator('[data-test=failed-jobs] tr[data-id]');
  assert.equal(await failed.count(), 1);
  assert.equal(await failed.getAttribute('data-id'), dead.id);
  assert.equal(await page.locator('[data-test=workflow-status] .badge').innerText(), 'failed');
  assert.equal(await page.locator('main button').count(), 0, 'no actions for a viewer');
  await assertNoStrayValues(page);
  await screenshot(page, 'workflow-summary');

  await failed.locator('a.mono').click();
  await page.locator('[data-test=workflow-link]', {hasText: 'bulk import'}).waitFor();
  assert.equal(await page.locator('main button').count(), 0);
  assert.deepEqual(browser.errors, [], 'no console errors');
});
