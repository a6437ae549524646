// Live updates in the console: with the event stream open (the header says
// "live"), the overview's counts, a job's status and the DLQ table change
// as the server changes them, without a reload. While the stream is open
// these pages do not poll (only every 30 s as a safety net), so a change
// shown within seconds came through the stream.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {setUp} from './support/fixture.js';
import {screenshot} from './support/browser.js';

const QUICK = {timeout: 10000};  // well under the 30 s safety poll

test('the overview, a job and the DLQ update live, without a reload', async (t) => {
  const {server, api, browser, page} = await setUp(t);
  await api.enqueue('emails', {n: 1});
  await page.goto(`${server.url}/#/`);
  await page.locator('[data-test=live][data-state=live]').waitFor(QUICK);
  const pending = page.locator('table[data-test=queues] tr[data-queue=emails] a.status-pending');
  await assert.doesNotReject(pending.filter({hasText: /^1$/}).waitFor(QUICK));
  // A marker that a reload would lose.
  await page.evaluate(() => { window.notReloaded = true; });

  await api.enqueue('emails', {n: 2});
  await pending.filter({hasText: /^2$/}).waitFor(QUICK);
  await screenshot(page, 'live-overview');

  const job = await api.claim('emails');
  await page.goto(`${server.url}/#/jobs/${job.id}`);  // a hash change: the same page
  await page.locator('h1 .badge.status-processing').waitFor(QUICK);
  await api.post(`/jobs/${job.id}/complete`,
                 {worker_id: 'test-worker', lease_id: job.lease_id, result: {ok: true}});
  await page.locator('h1 .badge.status-completed').waitFor(QUICK);

  await page.goto(`${server.url}/#/jobs?status=deadletter`);
  await page.locator('[data-test=filter-status]').waitFor(QUICK);
  const dead = await api.enqueue('reports', {}, {max_retries: 0});
  await api.failNext('reports', 'boom');
  await page.locator(`table[data-test=jobs] tr[data-id="${dead}"]`).waitFor(QUICK);
  await screenshot(page, 'live-dlq');

  assert.equal(await page.evaluate(() => window.notReloaded), true);
  assert.deepEqual(browser.errors, []);
});
