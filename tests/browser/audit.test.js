// The audit log in the console: an admin with a named key redrives a dead
// job giving a reason; the job's timeline shows who did it and why, the
// Audit page lists it and filters by action, and a viewer reads the page
// without client addresses.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {startServer} from './support/server.js';
import {client} from './support/client.js';
import {launch, screenshot, notice, assertNoStrayValues} from './support/browser.js';

test('audit: a reason given in the retry dialog shows on the timeline and the Audit page',
     async (t) => {
  const server = await startServer({apiKeys: ['admin@oncall:adm-secret', 'viewer:view-secret']});
  const api = client(server.url, 'adm-secret');
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await server.stop();
  });
  const {page} = browser;
  const dead = await api.deadJob('payments', {amount: 1}, 'gateway timeout');
  await api.post('/queues/payments/pause');

  await page.goto(`${server.url}/`);
  await page.fill('[data-test=api-key]', 'adm-secret');
  await page.click('[data-test=signin] button[type=submit]');
  await page.locator('tr[data-queue=payments]').waitFor();

  // Retry the job with a reason: the timeline names the key and the reason.
  await page.goto(`${server.url}/#/jobs/${dead}`);
  await page.click('[data-test=retry]');
  await page.fill('[data-test=field-reason]', 'gateway fixed, INC-4411 – café');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Job retried');
  const action = page.locator('[data-test=operator-action]');
  await action.waitFor();
  assert.match(await action.innerText(), /job\.retry by oncall/);
  assert.match(await action.innerText(), /“gateway fixed, INC-4411 – café”/);
  await assertNoStrayValues(page);
  await screenshot(page, 'job-timeline-operator-action');

  // The Audit page: both changes, newest first, filterable by action.
  await page.click('nav a[data-nav=audit]');
  const rows = page.locator('table[data-test=audit] tbody tr');
  await rows.nth(1).waitFor();
  assert.equal(await rows.count(), 2);
  assert.equal(await rows.nth(0).getAttribute('data-action'), 'job.retry');
  assert.match(await rows.nth(0).innerText(), /oncall/);
  assert.match(await rows.nth(0).innerText(), /gateway fixed, INC-4411 – café/);
  assert.match(await rows.nth(0).innerText(), /127\.0\.0\.1/);
  assert.equal(await rows.nth(1).getAttribute('data-action'), 'queue.pause');
  await page.selectOption('[data-test=filter-action]', 'queue.pause');
  await page.waitForURL(/action=queue\.pause/);
  await page.waitForFunction(
    () => document.querySelectorAll('table[data-test=audit] tbody tr').length === 1);
  await assertNoStrayValues(page);
  await screenshot(page, 'audit');

  // A viewer reads the log without client addresses.
  await page.click('#signout');
  await page.fill('[data-test=api-key]', 'view-secret');
  await page.click('[data-test=signin] button[type=submit]');
  await rows.first().waitFor();  // the page shown before signing out
  assert.equal(await page.locator('#role').innerText(), 'viewer');
  assert.doesNotMatch(await page.locator('table[data-test=audit]').innerText(), /127\.0\.0\.1/);
  assert.deepEqual(browser.errors, [], 'no console errors (CSP violations, exceptions)');
});
