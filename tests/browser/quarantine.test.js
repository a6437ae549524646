// Quarantine in the console, in a real browser against a real `redrive
// serve`: a job whose attempt crashed crash_limit (1) times is quarantined
// (made so through the API: claimed, then its 1-second attempt timeout ends
// the lease and the server's reaper quarantines it). The console lists it
// under status quarantined, apart from the dead letters, its page says why
// (reason crash_limit), and the operator releases it from there: it is
// pending again, with its crash count reset, and a worker can claim it.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {setUp} from './support/fixture.js';
import {screenshot, notice, assertNoStrayValues} from './support/browser.js';

// Polls `read` until `accept(value)` holds (the server's reaper runs on its
// own clock), at most `ms`.
async function eventually(read, accept, ms = 15000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (accept(value)) return value;
    if (Date.now() > deadline) assert.fail(`still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a crashed job is quarantined apart from the DLQ and released from the console',
     async (t) => {
  const {server, api, browser, page} = await setUp(t);
  // A dead letter, to show the quarantined job is not one.
  const dead = await api.deadJob('reports', {n: 1}, 'renderer out of memory');
  // crash_limit 1: the first lost lease quarantines it. A 1 s attempt
  // timeout ends the lease a second after the claim (leases are at least 5 s).
  const id = await api.enqueue('reports', {n: 2}, {crash_limit: 1, timeout_seconds: 1});
  const claimed = await api.claim('reports', 'crashing-worker');
  assert.equal(claimed.id, id);
  const quarantined = await eventually(() => api.get(`/jobs/${id}`),
                                       (j) => j.status === 'quarantined');
  assert.equal(quarantined.crash_count, 1);

  // The jobs list under status quarantined: this job only, not the dead one.
  await page.goto(`${server.url}/#/jobs?status=quarantined`);
  const row = page.locator(`table[data-test=jobs] tr[data-id="${id}"]`);
  await row.waitFor();
  assert.equal(await page.locator('table[data-test=jobs] tbody tr').count(), 1);
  assert.equal(await row.locator('.badge').innerText(), 'quarantined');
  await assertNoStrayValues(page);
  await screenshot(page, 'quarantine-list');

  // The DLQ does not list it; it lists the dead letter.
  await page.goto(`${server.url}/#/jobs?status=deadletter`);
  await page.locator(`table[data-test=jobs] tr[data-id="${dead}"]`).waitFor();
  assert.equal(await page.locator(`table[data-test=jobs] tr[data-id="${id}"]`).count(), 0);

  // Its page: quarantined, why (crash_limit, the timed-out attempt), and a
  // Release button.
  await page.goto(`${server.url}/#/jobs/${id}`);
  await page.locator('h1 .badge', {hasText: 'quarantined'}).waitFor();
  const entry = page.locator('[data-test=history] li.event-quarantined');
  await entry.waitFor();
  const why = await entry.innerText();
  assert.match(why, /reason: crash_limit/);
  assert.match(why, /crash_limit: 1/);
  assert.match(why, /attempt timed out after 1s/);
  assert.equal(await page.locator('[data-test=retry]').count(), 0, 'not a dead letter: no retry');
  await assertNoStrayValues(page);
  await screenshot(page, 'quarantine-job');

  await page.click('[data-test=release]');
  await page.locator('dialog', {hasText: 'Release this quarantined job?'}).waitFor();
  await screenshot(page, 'quarantine-release-dialog');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Job released: it is pending again, in reports.');
  await page.locator('h1 .badge', {hasText: 'pending'}).waitFor();
  await page.locator('[data-test=history] li.event-quarantine_released').waitFor();
  await screenshot(page, 'quarantine-released');

  const released = await api.get(`/jobs/${id}`);
  assert.equal(released.status, 'pending');
  assert.equal(released.crash_count, 0);
  assert.equal(released.queue_name, 'reports');
  assert.equal((await api.get('/jobs?status=quarantined')).length, 0);
  // It runs again.
  const again = await api.claim('reports', 'careful-worker');
  assert.equal(again.id, id);
  assert.deepEqual(browser.errors, []);
});
