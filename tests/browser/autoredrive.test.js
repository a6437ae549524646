// Auto-redrive in the console: on the DLQ's "Why are they dead?" panel an
// error class has a switch. Turned on, the queue's policy is enabled for
// that class and its live phase shows (cooling, then the canaries once the
// cool-down is over); turned off, it stops.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {setUp} from './support/fixture.js';
import {screenshot, notice, assertNoStrayValues} from './support/browser.js';

// Polls `fn` until it returns a truthy value (at most `ms`).
async function eventually(fn, ms = 15000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('auto-redrive: switch a class on, see its phase, switch it off', async (t) => {
  const {server, api, browser, page} = await setUp(t);
  const timeout = 'gateway timeout (upstream 504)';
  for (let i = 0; i < 5; i++) await api.deadJob('payments', {n: i}, timeout);

  await page.goto(`${server.url}/#/jobs?status=deadletter`);
  const row = page.locator('[data-test=dlq-summary] tr[data-test=dlq-class]').first();
  await row.waitFor();
  const toggle = row.locator('[data-test=autoredrive-switch]');
  assert.equal(await toggle.isChecked(), false, 'off by default');

  // On: the policy is enabled for this class, cooling first.
  await toggle.click();
  await notice(page, 'Auto-redrive on for queue payments');
  const phase = row.locator('[data-test=autoredrive-phase]');
  await phase.filter({hasText: /cooling/}).waitFor();
  assert.equal(await row.locator('[data-test=autoredrive-switch]').isChecked(), true);
  const policy = await api.get('/queues/payments/autoredrive');
  assert.equal(policy.enabled, true);
  assert.match(policy.fingerprint, /^[0-9a-f]{16}$/);
  assert.equal(policy.cooldown_seconds, 300);
  assert.equal(policy.state.phase, 'cooling');
  assert.equal(policy.eligible_count, 5);
  await assertNoStrayValues(page);
  await screenshot(page, 'autoredrive-on');

  // A short cool-down (through the API): the duty sends the canaries.
  await api.put('/queues/payments/autoredrive',
                {enabled: true, fingerprint: policy.fingerprint, cooldown_seconds: 1});
  const canary = await eventually(async () => {
    const p = await api.get('/queues/payments/autoredrive');
    return p.state.phase === 'canary' ? p : null;
  });
  assert.ok(canary, 'the canaries start once the cool-down is over');
  assert.equal(canary.state.batch_redriven, 3);
  await page.reload();
  await phase.filter({hasText: 'canary: 3 of 3 redriven'}).waitFor();
  assert.equal((await api.get('/jobs/stats?queue_name=payments')).pending, 3);
  await screenshot(page, 'autoredrive-canary');

  // Off: it stops (idle), the switch shows it.
  await row.locator('[data-test=autoredrive-switch]').click();
  await notice(page, 'Auto-redrive off for queue payments');
  await phase.filter({hasText: 'off'}).waitFor();
  assert.equal(await row.locator('[data-test=autoredrive-switch]').isChecked(), false);
  const off = await api.get('/queues/payments/autoredrive');
  assert.equal(off.enabled, false);
  assert.equal(off.state.phase, 'idle');
  assert.equal(off.cooldown_seconds, 1, 'switching off keeps the settings');
  assert.deepEqual(browser.errors, [], 'no console errors (CSP violations, exceptions)');
});
