// The web console in a real browser (Debian's chromium via playwright-core)
// against a real `redrive serve`: every page, the 3 a.m. DLQ workflow, the
// DLQ bulk actions (purge honours the same filters as the listing), "Why are
// they dead?" (redriving one error class), and API keys with the admin and
// viewer roles.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {setUp} from './support/fixture.js';
import {seedEveryStatus} from './support/client.js';
import {screenshot, notice, assertNoStrayValues} from './support/browser.js';

const rows = (page) => page.locator('table[data-test=jobs] tbody tr');
// Waits until the jobs table has exactly `n` rows.
const rowCount = (page, n) => page.waitForFunction(
  (count) => document.querySelectorAll('table[data-test=jobs] tbody tr').length === count, n);
const headingBadge = (page) => page.locator('h1 .badge');

test('admin: every page, then repair a dead job, redrive it and see it complete', async (t) => {
  const {server, api, browser, page} = await setUp(t);
  const ids = await seedEveryStatus(api);

  // Overview: counts by status per queue, DLQ age.
  await page.goto(`${server.url}/`);
  const payments = page.locator('tr[data-queue=payments]');
  await payments.waitFor();
  assert.equal(await payments.locator('a.status-deadletter').innerText(), '4');
  assert.equal(await page.locator('tr[data-queue=emails] a.status-processing').innerText(), '1');
  assert.match(await page.locator('#updated').innerText(), /updated/);
  await assertNoStrayValues(page);
  await screenshot(page, 'overview');

  // Jobs: every status, payload-free.
  await page.click('nav a[data-nav=jobs]');
  await rows(page).first().waitFor();
  assert.equal(await rows(page).count(), 9);
  for (const status of ['pending', 'scheduled', 'processing', 'completed', 'deadletter',
                        'cancelled']) {
    assert.ok(await page.locator(`tbody .badge.status-${status}`).count() >= 1, status);
  }
  await assertNoStrayValues(page);
  await screenshot(page, 'jobs');

  // A tag filter (typed, then applied).
  await page.fill('[data-test=filter-tag]', 'customer=c1');
  await page.click('form.filters button[type=submit]');
  await page.waitForURL(/tag=customer%3Dc1/);
  await rowCount(page, 1);
  await page.fill('[data-test=filter-tag]', '');
  await page.click('form.filters button[type=submit]');
  await rowCount(page, 9);

  // Filter to the DLQ, then by dead reason.
  await page.selectOption('[data-test=filter-status]', 'deadletter');
  await page.waitForURL(/status=deadletter/);
  await page.locator('h1', {hasText: 'Dead letters'}).waitFor();
  await rows(page).nth(3).waitFor();
  assert.equal(await rows(page).count(), 4);
  await page.selectOption('[data-test=filter-reason]', 'non_retryable');
  await page.waitForURL(/reason=non_retryable/);
  await rowCount(page, 1);
  await page.selectOption('[data-test=filter-reason]', 'max_retries_exceeded');
  await rowCount(page, 3);
  await assertNoStrayValues(page);
  await screenshot(page, 'dlq');

  // Open a dead job: its error is shown as text, never as markup.
  await page.click(`a[href="#/jobs/${ids.dead[0]}"]`);
  await page.locator('[data-test=history]').waitFor();
  assert.equal(await headingBadge(page).innerText(), 'deadletter');
  const facts = page.locator('[data-test=facts]');
  assert.match(await facts.innerText(), /<img src=x onerror=alert\(1\)> card declined #0/);
  assert.equal(await page.locator('main img').count(), 0);
  assert.match(await page.locator('[data-test=history]').innerText(), /deadlettered/);
  assert.match(await page.locator('[data-test=payload-view]').innerText(), /"currency": "EUR"/);

  // Edit its payload: invalid JSON cannot be sent.
  await page.click('[data-test=edit-payload]');
  await page.fill('[data-test=payload-editor]', '{"amount": 100,');
  assert.match(await page.locator('[data-test=json-status]').innerText(), /Not valid JSON/);
  assert.ok(await page.locator('[data-test=save-and-retry]').isDisabled());
  await page.fill('[data-test=payload-editor]', '{"amount": 100, "currency": "USD"}');
  assert.equal(await page.locator('[data-test=json-status]').innerText(), 'Valid JSON.');
  await screenshot(page, 'job-edit-payload');
  await page.click('[data-test=save-and-retry]');
  await notice(page, 'Payload saved and job retried');
  await page.locator('h1 .badge', {hasText: 'pending'}).waitFor();

  // The test is the worker: the repaired job runs and completes.
  const claimed = await api.completeNext('payments');
  assert.equal(claimed.id, ids.dead[0]);
  assert.deepEqual(claimed.payload, {amount: 100, currency: 'USD'});
  await page.reload();
  await page.locator('h1 .badge', {hasText: 'completed'}).waitFor();
  const history = await page.locator('[data-test=history]').innerText();
  for (const event of ['payload_updated', 'retried', 'completed']) {
    assert.ok(history.includes(event), event);
  }
  await assertNoStrayValues(page);
  await screenshot(page, 'job-completed');

  // Job actions by status: a pending job can be reprioritised and cancelled.
  await page.goto(`${server.url}/#/jobs/${ids.pending}`);
  await page.click('[data-test=priority]');
  await page.fill('dialog input[name=priority]', '42');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Priority 0 → 42');
  await page.click('[data-test=cancel]');
  await page.click('[data-test=dialog-confirm]');
  await page.locator('h1 .badge', {hasText: 'cancelled'}).waitFor();
  const cancelled = await api.get(`/jobs/${ids.pending}`);
  assert.equal(cancelled.status, 'cancelled');
  assert.equal(cancelled.priority, 42);

  // Queue page: a refused config shows the server's error; then a valid edit,
  // then pause with a reason.
  await page.goto(`${server.url}/#/queues/payments`);
  await page.locator('[data-test=queue-config]').waitFor();
  // A refresh that was loading when the operator began typing must not
  // redraw the form under them: hold the page's next poll until the field
  // is edited, then let it finish.
  const queueUrl = '**/api/v1/queues/payments';
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(queueUrl, async (route) => { await held; await route.continue(); });
  await page.waitForRequest((r) => r.method() === 'GET' &&
                                   new URL(r.url()).pathname === '/api/v1/queues/payments');
  const before = await page.locator('#updated').getAttribute('title');
  await page.fill('input[name=max_retries]', '500');
  release();
  await page.waitForFunction(
    (stamp) => document.getElementById('updated').title !== stamp, before);
  await page.unroute(queueUrl);
  assert.equal(await page.inputValue('input[name=max_retries]'), '500');
  await page.click('[data-test=save-config]');
  const error = page.locator('.message.error', {hasText: 'VALIDATION_ERROR'});
  await error.waitFor();
  assert.match(await error.innerText(), /max_retries/);
  await error.locator('button').click();
  await page.fill('input[name=max_retries]', '5');
  await page.fill('input[name="backoff.base_ms"]', '2s');
  await page.fill('input[name="retention.completed_seconds"]', '');
  await page.click('[data-test=save-config]');
  await notice(page, 'Configuration of payments saved');
  const config = await api.get('/queues/payments');
  assert.equal(config.max_retries, 5);
  assert.equal(config.backoff.base_ms, 2000);
  assert.equal(config.retention.completed_seconds, null);
  await page.click('button:has-text("Pause")');
  await page.fill('dialog input[name=reason]', 'provider outage');
  await screenshot(page, 'queue-pause-dialog');
  await page.click('[data-test=dialog-confirm]');
  await page.locator('h1 .badge', {hasText: 'paused'}).waitFor();
  assert.equal((await api.get('/queues/payments')).paused, true);
  await assertNoStrayValues(page);
  await screenshot(page, 'queue');
  await page.click('button:has-text("Resume")');
  await page.locator('h1 .badge', {hasText: 'active'}).waitFor();
  assert.equal((await api.get('/queues/payments')).paused, false);

  // The refused config above logged its 400; nothing else may appear.
  assert.deepEqual(browser.errors.filter((e) => !e.includes('status of 400')), [],
                   'no console errors (CSP violations, exceptions)');
});

test('DLQ: retry all matching shows the dry-run count first; retry selected; purge', async (t) => {
  const {server, api, page} = await setUp(t);
  for (let i = 0; i < 5; i++) await api.deadJob('payments', {n: i}, 'HTTP 503');
  for (let i = 0; i < 2; i++) {
    await api.deadJob('payments', {n: 10 + i}, 'invalid card', {noRetry: true});
  }
  await api.deadJob('reports', {n: 20}, 'boom');

  await page.goto(
    `${server.url}/#/jobs?queue=payments&status=deadletter&reason=max_retries_exceeded`);
  await rows(page).nth(4).waitFor();
  await page.click('[data-test=retry-matching]');
  const matched = page.locator('dialog [data-test=matched-count]');
  await matched.waitFor();
  assert.match(await matched.innerText(),
               /^5 dead jobs match queue payments, reason max_retries_exceeded/);
  assert.equal((await api.get('/jobs/stats?queue_name=payments')).deadletter, 7,
               'the dry run changed nothing');
  await page.fill('dialog input[name=rate]', '-1');
  assert.ok(await page.locator('[data-test=dialog-confirm]').isDisabled());
  await page.fill('dialog input[name=rate]', '');  // as fast as batches go
  // Into a queue of their own: a name that is no queue name is refused first.
  await page.fill('dialog input[name=target_queue]', 'no spaces');
  assert.ok(await page.locator('[data-test=dialog-confirm]').isDisabled());
  await page.fill('dialog input[name=target_queue]', 'payments-slow');
  await screenshot(page, 'dlq-retry-matching');
  await page.click('[data-test=dialog-confirm]');
  // A filter: one bulk operation on the server, followed with a progress bar.
  await page.locator('.message.notice', {hasText: 'Done: retried 5 of 5 matching jobs.'}).waitFor();
  let stats = await api.get('/jobs/stats?queue_name=payments');
  assert.equal(stats.deadletter, 2);
  assert.equal(stats.pending + stats.scheduled, 0, 'they moved to payments-slow');
  const slow = await api.get('/jobs/stats?queue_name=payments-slow');
  assert.equal(slow.pending + slow.scheduled, 5);
  const [op] = await api.get('/operations');
  assert.equal(op.action, 'retry');
  assert.equal(op.state, 'completed');
  assert.equal(op.target_queue, 'payments-slow');
  assert.deepEqual(op.selector, {dead_reason: 'max_retries_exceeded', queue_name: 'payments'});
  await page.locator('p.empty', {hasText: 'No jobs match'}).waitFor();

  // Retry selected: one of the two non-retryable jobs.
  await page.selectOption('[data-test=filter-reason]', 'non_retryable');
  await rows(page).nth(1).waitFor();
  assert.ok(await page.locator('[data-test=retry-selected]').isDisabled());
  await rows(page).first().locator('input[type=checkbox]').check();
  assert.equal(await page.locator('[data-test=retry-selected]').innerText(), 'Retry selected (1)');
  await page.click('[data-test=retry-selected]');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Retried 1 job.');
  assert.equal((await api.get('/jobs/stats?queue_name=payments')).deadletter, 1);

  // Purge the queue's DLQ: only after typing the queue name.
  await page.selectOption('[data-test=filter-reason]', '');
  await page.waitForURL((u) => !u.hash.includes('reason='));
  await page.click('[data-test=purge]');
  await page.locator('dialog [data-test=purge-summary]', {hasText: 'all 1 dead jobs of queue payments'})
    .waitFor();
  const confirm = page.locator('[data-test=dialog-confirm]');
  assert.ok(await confirm.isDisabled());
  await page.fill('[data-test=type-to-confirm]', 'payment');
  assert.ok(await confirm.isDisabled());
  await page.fill('[data-test=type-to-confirm]', 'payments');
  assert.ok(!(await confirm.isDisabled()));
  await screenshot(page, 'dlq-purge');
  await confirm.click();
  await notice(page, 'Done: purged 1 of 1 matching jobs');
  stats = await api.get('/jobs/stats?queue_name=payments');
  assert.equal(stats.deadletter, 0);
  assert.equal((await api.get('/jobs/stats?queue_name=reports')).deadletter, 1, 'other queues kept');
});

test('DLQ: retry all matching runs an operation with a live progress bar and a Cancel button',
     async (t) => {
  const {server, api, browser, page} = await setUp(t);
  for (let i = 0; i < 6; i++) await api.deadJob('payments', {n: i}, 'HTTP 503');
  await page.goto(`${server.url}/#/jobs?queue=payments&status=deadletter`);
  await rows(page).nth(5).waitFor();
  await page.click('[data-test=retry-matching]');
  await page.locator('dialog [data-test=matched-count]').waitFor();
  await page.fill('dialog input[name=rate]', '0.5');  // one job every 2 s
  await page.click('[data-test=dialog-confirm]');
  const panel = page.locator('[data-test=operation-progress]');
  await panel.waitFor();
  await page.locator('[data-test=operation-text]', {hasText: /running: retried 1 of 6/}).waitFor();
  const bar = page.locator('[data-test=operation-bar]');
  assert.equal(await bar.getAttribute('max'), '6');
  await screenshot(page, 'dlq-operation-progress');
  await page.click('[data-test=operation-cancel]');
  await page.locator('.message.notice', {hasText: /Operation cancelled: retried \d of 6/}).waitFor();
  assert.equal(await panel.getAttribute('data-state'), 'cancelled');
  const [op] = await api.get('/operations');
  assert.equal(op.state, 'cancelled');
  assert.ok(op.done >= 1 && op.done < 6, `done ${op.done}`);
  assert.equal((await api.get('/jobs/stats?queue_name=payments')).deadletter, 6 - op.done,
               'the cancel stopped it: the rest stay dead');
  assert.deepEqual(browser.errors, [], 'no console errors (CSP violations, exceptions)');
});

test('DLQ: purge with a dead-reason filter counts and deletes that reason only', async (t) => {
  const {server, api, browser, page} = await setUp(t);
  for (let i = 0; i < 3; i++) await api.deadJob('payments', {n: i}, 'HTTP 503');
  for (let i = 0; i < 2; i++) {
    await api.deadJob('payments', {n: 10 + i}, 'invalid card', {noRetry: true});
  }

  await page.goto(`${server.url}/#/jobs?queue=payments&status=deadletter&reason=non_retryable`);
  await rows(page).nth(1).waitFor();
  await page.click('[data-test=purge]');
  // The count is the purge's own dry run: that reason's 2, not the queue's 5.
  const summary = page.locator('dialog [data-test=purge-summary]');
  await summary.waitFor();
  assert.match(await summary.innerText(),
               /^This deletes all 2 dead jobs of queue payments whose reason is non_retryable,/);
  assert.doesNotMatch(await page.locator('dialog').innerText(), /ignores/);
  assert.equal((await api.get('/jobs/stats?queue_name=payments')).deadletter, 5,
               'the dry run deleted nothing');
  await page.fill('[data-test=type-to-confirm]', 'payments');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Done: purged 2 of 2 matching jobs');
  assert.equal((await api.get('/jobs/stats?queue_name=payments')).deadletter, 3);
  const left = await api.get('/jobs/dlq?queue_name=payments');
  assert.deepEqual([...new Set(left.map((j) => j.dead_reason))], ['max_retries_exceeded'],
                   'the other reason stays in the DLQ');
  assert.deepEqual(browser.errors, [], 'no console errors (CSP violations, exceptions)');
});

test('DLQ: why are they dead? the classes with counts; redrive and purge one class', async (t) => {
  const {server, api, browser, page} = await setUp(t);
  const timeout = 'gateway timeout (upstream 504)';
  for (let i = 0; i < 4; i++) await api.deadJob('payments', {n: i}, timeout);
  for (let i = 0; i < 2; i++) {
    await api.deadJob('payments', {n: 10 + i}, 'invalid card', {noRetry: true});
  }
  await api.deadJob('reports', {n: 20}, timeout);

  // The panel: one line per (queue, reason, error), largest first.
  await page.goto(`${server.url}/#/jobs?status=deadletter`);
  const classes = page.locator('[data-test=dlq-summary] tr[data-test=dlq-class]');
  await classes.nth(2).waitFor();
  assert.equal(await classes.count(), 3);
  const cells = async (i) => (await classes.nth(i).locator('td').allInnerTexts()).slice(0, 4);
  assert.deepEqual(await cells(0), ['4', 'payments', 'max_retries_exceeded', timeout]);
  assert.deepEqual(await cells(1), ['2', 'payments', 'non_retryable', 'invalid card']);
  assert.deepEqual(await cells(2), ['1', 'reports', 'max_retries_exceeded', timeout]);
  await rows(page).nth(6).waitFor();
  await assertNoStrayValues(page);
  await screenshot(page, 'dlq-summary');

  // Show only the payments timeouts: the table and the chip follow.
  // Errors alike but for their numbers are one class: its normalized message,
  // an example, and its first and last seen.
  await api.deadJob('payments', {n: 30}, 'card declined after 2 attempts', {noRetry: true});
  await api.deadJob('payments', {n: 31}, 'card declined after 3 attempts', {noRetry: true});
  await page.reload();
  await classes.nth(3).waitFor();
  const declined = classes.filter({hasText: 'card declined'});
  assert.equal(await declined.count(), 1);
  assert.equal(await declined.locator('td.count').innerText(), '2');
  assert.equal(await declined.locator('[data-test=class-message]').innerText(),
               'card declined after <n> attempts');
  assert.equal(await declined.locator('[data-test=class-example]').innerText(),
               'e.g. card declined after 2 attempts');
  assert.notEqual(await declined.locator('[data-test=first-seen]').innerText(), '');
  assert.notEqual(await declined.locator('[data-test=last-seen]').innerText(), '');
  await api.post('/jobs/dlq/purge', {confirm: true, queue_name: 'payments',
                                     error_prefix: 'card declined'});
  await page.reload();
  await page.waitForFunction(() =>
    document.querySelectorAll('[data-test=dlq-summary] tr[data-test=dlq-class]').length === 3);

  await classes.nth(0).locator('[data-test=show-class]').click();
  await page.waitForURL(/fingerprint=[0-9a-f]{16}/);
  await page.locator('[data-test=filter-error]', {hasText: timeout}).waitFor();
  await rowCount(page, 4);
  assert.equal(await page.locator('[data-test=dlq-summary] tr.selected').count(), 1);
  await screenshot(page, 'dlq-summary-class');

  // Retry all matching: the dry run counts that class only, and says which.
  await page.click('[data-test=retry-matching]');
  const matched = page.locator('dialog [data-test=matched-count]');
  await matched.waitFor();
  assert.match(await matched.innerText(), new RegExp(
    '^4 dead jobs match queue payments, reason max_retries_exceeded, ' +
    'error class “gateway timeout \\(upstream 504\\)”'));
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Done: retried 4 of 4 matching jobs');
  let stats = await api.get('/jobs/stats?queue_name=payments');
  assert.equal(stats.deadletter, 2, 'the invalid cards stay dead');
  assert.equal((await api.get('/jobs/stats?queue_name=reports')).deadletter, 1,
               'the same error in another queue stays dead');
  await page.locator('p.empty', {hasText: 'No jobs match'}).waitFor();
  await page.waitForFunction(() =>
    document.querySelectorAll('[data-test=dlq-summary] tr[data-test=dlq-class]').length === 2);

  // Purge the invalid cards: the confirmation names the class (its reason too).
  await classes.nth(0).locator('[data-test=show-class]').click();
  await page.waitForURL(/error_class=invalid/);
  await page.click('[data-test=purge]');
  await page.locator('dialog [data-test=purge-summary]', {hasText:
    'all 2 dead jobs of queue payments whose reason is non_retryable, ' +
    'whose error is of class “invalid card”'}).waitFor();
  await page.fill('[data-test=type-to-confirm]', 'payments');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Done: purged 2 of 2 matching jobs');
  stats = await api.get('/jobs/stats?queue_name=payments');
  assert.equal(stats.deadletter, 0);
  assert.equal(stats.pending, 4, 'the redriven timeouts were not purged');
  assert.equal((await api.get('/jobs/stats?queue_name=reports')).deadletter, 1);

  // The chip's × removes the class filter.
  await page.click('[data-test=remove-error-filter]');
  await page.waitForURL((u) => !u.hash.includes('fingerprint='));
  await page.locator('[data-test=filter-error]').waitFor({state: 'detached'});
  assert.deepEqual(browser.errors, [], 'no console errors (CSP violations, exceptions)');
});

test('one vocabulary with the CLI: queue states, durations, and duration forms', async (t) => {
  const {server, api, browser, page} = await setUp(t);
  const id = await api.enqueue('billing', {n: 1});
  await api.completeNext('billing');

  // The overview and the queue page say "active", as `redrive queues list` does.
  await page.goto(`${server.url}/`);
  const state = page.locator('tr[data-queue=billing] [data-test=queue-state]');
  await state.waitFor();
  assert.equal(await state.innerText(), 'active');
  await api.put('/queues/billing/config', {enabled: false});
  await page.reload();
  await page.locator('tr[data-queue=billing] [data-test=queue-state]', {hasText: 'disabled'})
    .waitFor();
  await api.put('/queues/billing/config', {enabled: true});

  // A job: "Finished", and durations in the CLI's words.
  await page.goto(`${server.url}/#/jobs/${id}`);
  const facts = page.locator('[data-test=facts]');
  await facts.waitFor();
  const text = await facts.innerText();
  assert.match(text, /Finished/);
  assert.doesNotMatch(text, /Completed/);
  assert.match(text, /1s doubling to 1m, plus up to 500ms jitter/);
  assert.match(text, /5m per attempt/);

  // The queue form shows durations and takes them: 7d, 90s, 1h30m.
  await page.goto(`${server.url}/#/queues/billing`);
  await page.locator('[data-test=queue-config]').waitFor();
  assert.equal(await page.inputValue('input[name=default_timeout]'), '5m');
  assert.equal(await page.inputValue('input[name="backoff.max_ms"]'), '1m');
  assert.equal(await page.inputValue('input[name="retention.completed_seconds"]'), '7d');
  assert.equal(await page.inputValue('input[name="retention.deadletter_seconds"]'), 'forever');
  await page.fill('input[name=default_timeout]', 'soon');
  await page.click('[data-test=save-config]');
  await page.locator('.message.error', {hasText: 'is not a duration'}).waitFor();
  assert.equal((await api.get('/queues/billing')).default_timeout, 300, 'nothing was saved');
  await page.locator('.message.error button').click();
  await page.fill('input[name=default_timeout]', '90s');
  await page.fill('input[name="backoff.base_ms"]', '250ms');
  await page.fill('input[name="retention.completed_seconds"]', '1h30m');
  await page.fill('input[name="retention.deadletter_seconds"]', '30d');
  await page.click('[data-test=save-config]');
  await notice(page, 'Configuration of billing saved');
  const q = await api.get('/queues/billing');
  assert.equal(q.default_timeout, 90);
  assert.equal(q.backoff.base_ms, 250);
  assert.equal(q.retention.completed_seconds, 5400);
  assert.equal(q.retention.deadletter_seconds, 30 * 86400);
  assert.equal(q.retention.cancelled_seconds, 7 * 86400, 'an untouched field saves unchanged');
  await page.locator('input[name=default_timeout]').waitFor();
  await page.waitForFunction(() =>
    document.querySelector('input[name=default_timeout]').value === '1m30s');
  await screenshot(page, 'queue-durations');
  assert.deepEqual(browser.errors, [], 'no console errors (CSP violations, exceptions)');
});

test('DLQ: a selection that matches nothing names the closest error classes', async (t) => {
  const {server, api, browser, page} = await setUp(t);
  for (let i = 0; i < 2; i++) {
    await api.deadJob('payments', {n: i}, 'gateway timeout (upstream 504)');
  }
  await api.deadJob('payments', {n: 9}, 'invalid card', {noRetry: true});
  await page.goto(`${server.url}/#/jobs?queue=payments&status=deadletter&error_prefix=` +
                  encodeURIComponent('Gateway timeuot'));
  await page.locator('p.empty', {hasText: 'No jobs match'}).waitFor();
  await page.click('[data-test=retry-matching]');
  await page.locator('dialog [data-test=no-match]', {hasText: 'No dead jobs match'}).waitFor();
  const closest = page.locator('dialog [data-test=closest-class]');
  await closest.first().waitFor();
  assert.equal(await closest.count(), 2);
  assert.match(await closest.first().innerText(), /^2 × payments · max_retries_exceeded · gateway timeout/);
  await screenshot(page, 'dlq-no-match');
  await closest.first().click();
  await page.waitForURL(/fingerprint=[0-9a-f]{16}/);
  await rowCount(page, 2);
  assert.equal((await api.get('/jobs/stats?queue_name=payments')).deadletter, 3, 'nothing retried');
  assert.deepEqual(browser.errors, [], 'no console errors (CSP violations, exceptions)');
});

test('API keys: the console asks for one; a viewer sees no payloads and no actions', async (t) => {
  const {server, api, browser, page} = await setUp(t, {
    apiKeys: ['admin:adm-secret', 'viewer:view-secret', 'worker:wrk-secret'], key: 'adm-secret'});
  const ids = await seedEveryStatus(api);

  await page.goto(`${server.url}/`);
  await page.locator('[data-test=signin]').waitFor();
  await screenshot(page, 'signin');
  await page.fill('[data-test=api-key]', 'wrong');
  await page.click('[data-test=signin] button[type=submit]');
  await page.locator('[data-test=signin] .field-error', {hasText: 'not accepted'}).waitFor();
  // A worker key is valid but cannot read the operator's routes: refused at sign-in.
  await page.fill('[data-test=api-key]', 'wrk-secret');
  await page.click('[data-test=signin] button[type=submit]');
  await page.locator('[data-test=signin] .field-error', {hasText: 'worker key'}).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('redrive.apiKey')), null);

  await page.fill('[data-test=api-key]', 'view-secret');
  await page.click('[data-test=signin] button[type=submit]');
  await page.locator('tr[data-queue=payments]').waitFor();
  assert.equal(await page.locator('#role').innerText(), 'viewer');
  assert.equal(await page.locator('main button').count(), 0, 'no actions on the overview');

  await page.goto(`${server.url}/#/jobs?status=deadletter`);
  await rows(page).first().waitFor();
  assert.equal(await page.locator('main input[type=checkbox]').count(), 0);
  assert.equal(await page.locator('[data-test=retry-matching], [data-test=purge]').count(), 0);

  await page.goto(`${server.url}/#/jobs/${ids.dead[0]}`);
  await page.locator('[data-test=history]').waitFor();
  assert.match(await page.locator('[data-test=payload]').innerText(), /not shown to the viewer/);
  assert.equal(await page.locator('[data-test=job-actions], [data-test=edit-payload]').count(), 0);
  assert.equal(await page.locator('main button').count(), 0);
  await assertNoStrayValues(page);
  await screenshot(page, 'viewer-job');

  await page.goto(`${server.url}/#/queues/payments`);
  await page.locator('[data-test=queue-config]').waitFor();
  assert.ok(await page.locator('input[name=max_retries]').isDisabled());
  assert.equal(await page.locator('main button').count(), 0);

  // The key lives in this tab's sessionStorage: a reload keeps it, a new tab asks.
  await page.reload();
  await page.locator('[data-test=queue-config]').waitFor();
  const other = await browser.newPage();
  await other.goto(`${server.url}/`);
  await other.locator('[data-test=signin]').waitFor();
  await other.close();

  // Sign out, then in as admin: the actions appear.
  await page.click('#signout');
  await page.locator('[data-test=signin]').waitFor();
  await page.fill('[data-test=api-key]', 'adm-secret');
  await page.click('[data-test=signin] button[type=submit]');
  await page.locator('[data-test=save-config]').waitFor();
  assert.equal(await page.locator('#role').innerText(), 'admin');

  // A key the server stops accepting (here: replaced in storage) → asked again.
  await page.evaluate(() => sessionStorage.setItem('redrive.apiKey', 'revoked'));
  await page.goto(`${server.url}/#/jobs`);
  await page.locator('[data-test=signin] .field-error', {hasText: '401'}).waitFor();
});
