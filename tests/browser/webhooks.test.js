// The console's Webhooks pages in a real browser against a real `redrive
// serve`, with a loopback HTTP receiver that answers 200 or 500 as told:
// create (the secret shown once), test, a dead job's event delivered and its
// body shown, failing attempts piling up until the webhook disables itself,
// re-enable, disable, delete; and a viewer key that only reads.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {createServer} from 'node:http';
import {startServer} from './support/server.js';
import {client} from './support/client.js';
import {launch, screenshot, notice, assertNoStrayValues} from './support/browser.js';

// A receiver on a free loopback port: records every POST, answers `status`.
async function startReceiver() {
  const receiver = {status: 200, requests: []};
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      receiver.requests.push({headers: req.headers, body});
      res.writeHead(receiver.status, {'Content-Type': 'text/plain'});
      res.end(receiver.status < 300 ? 'ok' : 'receiver says no');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${server.address().port}/hooks`;
  receiver.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  });
  return receiver;
}

async function setUp(t, {apiKeys = [], key} = {}) {
  const receiver = await startReceiver();
  // Retries 1 ms, 2 ms, 4 ms, … apart: failed attempts pile up within seconds.
  // The receivers are on loopback, which a server refuses by default.
  const server = await startServer({
    apiKeys, args: ['--webhook-retry-base-ms', '1', '--webhook-allow-private-targets']});
  const api = client(server.url, key);
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await server.stop();
    await receiver.close();
  });
  return {receiver, server, api, browser, page: browser.page};
}

// Polls `fn` until it returns something truthy (at most `ms`).
async function until(what, fn, ms = 30000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const hookRow = (page, name) => page.locator(`table[data-test=webhooks] tr[data-name="${name}"]`);
const deliveryRows = (page) => page.locator('table[data-test=deliveries] tbody tr[data-id]');

// Resolves once the console's poll has refreshed the page again (app.js
// stamps #updated's title with the time of each refresh it completes).
async function nextRefresh(page) {
  const last = await page.locator('#updated').getAttribute('title');
  await page.waitForFunction((t) => document.getElementById('updated').title !== t, last,
                             {timeout: 15000});
}

test('admin: create, test, deliveries with bodies, failures, disable/enable, delete',
     async (t) => {
  const {receiver, server, api, browser, page} = await setUp(t);

  await page.goto(`${server.url}/`);
  await page.click('nav a[data-nav=webhooks]');
  await page.locator('h1', {hasText: 'Webhooks'}).waitFor();
  assert.ok(await page.locator('nav a[data-nav=webhooks]').evaluate((a) =>
    a.classList.contains('active')));
  await page.locator('p.empty', {hasText: 'No webhooks yet'}).waitFor();

  // A URL the server refuses: its VALIDATION_ERROR is shown next to the field.
  const form = page.locator('[data-test=new-webhook] form');
  await form.locator('input[name=name]').fill('on-call alerts');
  await form.locator('input[name=url]').fill('ftp://example.com/x');
  await form.locator('input[value="job.failed"]').check();
  await page.click('[data-test=create-webhook]');
  const urlError = form.locator('[data-field-error=url]');
  await urlError.locator('text=VALIDATION_ERROR').waitFor();
  assert.match(await urlError.innerText(), /url must be an absolute http/);
  assert.equal(await form.locator('input[name=url]').getAttribute('aria-invalid'), 'true');
  await page.locator('.message.error', {hasText: 'VALIDATION_ERROR'}).waitFor();
  await screenshot(page, 'webhooks-create-error');

  // Create it for real: the secret is shown once.
  await form.locator('input[name=url]').fill(receiver.url);
  await page.click('[data-test=create-webhook]');
  const secretBox = page.locator('[data-test=secret-once]');
  await secretBox.waitFor();
  assert.equal(await page.locator('.message.error').count(), 0, 'the old error is gone');
  assert.match(await secretBox.innerText(), /Copy it now, it will not be shown again/);
  const secret = await page.locator('[data-test=secret-value]').inputValue();
  assert.match(secret, /^whsec_[0-9a-f]{64}$/);
  const row = hookRow(page, 'on-call alerts');
  await row.waitFor();
  assert.match(await row.innerText(), /job\.failed/);
  assert.match(await row.innerText(), /job\.deadlettered/);
  assert.match(await row.innerText(), /enabled/);
  assert.equal(await form.locator('input[name=url]').inputValue(), '', 'the form is reset');
  await screenshot(page, 'webhooks-created-secret');
  const [hook] = await api.get('/outgoing-webhooks');
  assert.equal(hook.has_secret, true);
  assert.equal(hook.secret, undefined, 'no later answer has the secret');
  await page.click('[data-test=secret-dismiss]');
  assert.equal(await secretBox.count(), 0);
  await page.reload();
  await row.waitFor();
  assert.doesNotMatch(await page.locator('main').innerText(), /whsec_/, 'shown only once');

  // Send test: the outcome with its status code and duration.
  await row.locator('[data-test=send-test]').click();
  const outcome = page.locator('[data-test=test-outcome]');
  await outcome.waitFor();
  assert.match(await outcome.innerText(), /Test delivered to on-call alerts: HTTP 200 in \d+ ms/);
  assert.equal(receiver.requests.at(-1).headers['x-redrive-event'], 'webhook.test');
  assert.match(receiver.requests.at(-1).headers['x-redrive-signature'], /^sha256=[0-9a-f]{64}$/);

  // A job goes to the DLQ: its job.deadlettered event is delivered.
  const jobId = await api.deadJob('payments', {order: 42}, 'card declined');
  await until('job.deadlettered delivered', async () =>
    (await api.get(`/outgoing-webhooks/${hook.id}/deliveries?status=delivered`))
      .some((d) => d.event === 'job.deadlettered'));

  await page.click(`a[href="#/webhooks/${hook.id}"]`);
  await page.locator('[data-test=webhook-facts]').waitFor();
  const delivered = deliveryRows(page).filter({has: page.locator('summary', {hasText: 'job.deadlettered'})});
  await delivered.waitFor();
  assert.match(await delivered.innerText(), /delivered/);
  assert.match(await delivered.innerText(), /\b200\b/);
  assert.equal(await deliveryRows(page).filter({hasText: 'webhook.test'}).count(), 1);
  await delivered.locator('summary').click();
  const body = page.locator(`tr[data-body-of="${await delivered.getAttribute('data-id')}"] pre`);
  await body.waitFor();
  const shown = JSON.parse(await body.innerText());
  assert.equal(shown.event, 'job.deadlettered');
  assert.equal(shown.data.job_id, jobId);
  assert.equal(shown.data.last_error, 'card declined');
  assert.match(await body.innerText(), /\n  "data": \{\n/, 'pretty-printed');
  // The open body survives the 5 s refresh.
  await nextRefresh(page);
  assert.equal(await body.count(), 1);
  await assertNoStrayValues(page);
  await screenshot(page, 'webhook-detail-delivered');

  // The receiver breaks: attempts pile up, and after 20 failures in a row the
  // webhook disables itself.
  receiver.status = 500;
  await api.deadJob('payments', {order: 42}, 'card declined again');
  await until('auto-disable', async () =>
    !(await api.get(`/outgoing-webhooks/${hook.id}`)).enabled);
  await page.selectOption('[data-test=filter-delivery-status]', 'pending');
  await page.waitForURL(/status=pending/);
  await page.locator('h1 .badge', {hasText: 'disabled'}).waitFor();
  await deliveryRows(page).nth(1).waitFor();
  assert.equal(await deliveryRows(page).count(), 2);
  for (const r of await deliveryRows(page).all()) {
    const cells = await r.locator('td').allInnerTexts();
    assert.equal(cells[1], 'pending');
    assert.ok(Number(cells[2]) > 1, `several attempts: ${cells[2]}`);
    assert.equal(cells[3], '500');
    assert.equal(cells[4], 'HTTP 500');
  }
  const reason = page.locator('[data-test=disabled-reason]');
  assert.match(await reason.innerText(), /20 consecutive failed deliveries; last: HTTP 500/);
  await deliveryRows(page).first().locator('summary').click();
  await page.locator('tr.body-row pre').waitFor();
  await assertNoStrayValues(page);
  await screenshot(page, 'webhook-detail-failing');

  // The list shows the incident.
  await page.click('a[href="#/webhooks"]');
  await row.waitFor();
  await page.locator('[data-test=disabled-alert]', {hasText: '1 webhook is disabled'}).waitFor();
  assert.match(await row.locator('[data-test=disabled-reason]').innerText(), /HTTP 500/);
  assert.match(await row.locator('td.failures').innerText(), /^2\d$/);
  // A test now fails, and says so.
  await row.locator('[data-test=send-test]').click();
  await outcome.locator('text=Test failed').waitFor();
  assert.match(await outcome.innerText(), /HTTP 500 in \d+ ms/);
  await assertNoStrayValues(page);
  await screenshot(page, 'webhooks-list-disabled');

  // The endpoint is fixed: enable; the waiting deliveries go out.
  receiver.status = 200;
  await row.locator('[data-test=enable]').click();
  await notice(page, 'enabled: failures reset');
  await row.locator('.badge', {hasText: 'enabled'}).waitFor();
  assert.equal(await page.locator('[data-test=disabled-alert]').count(), 0);
  await until('the waiting deliveries delivered', async () =>
    (await api.get(`/outgoing-webhooks/${hook.id}/deliveries?status=pending`)).length === 0);

  // Disable by hand (a dialog first), then enable again.
  await row.locator('[data-test=disable]').click();
  await page.locator('dialog h2', {hasText: 'Disable webhook “on-call alerts”?'}).waitFor();
  await page.click('[data-test=dialog-confirm]');
  await row.locator('[data-test=disabled-reason]', {hasText: 'Disabled by an operator'}).waitFor();
  assert.equal((await api.get(`/outgoing-webhooks/${hook.id}`)).enabled, false);
  await row.locator('[data-test=enable]').click();
  await row.locator('.badge', {hasText: 'enabled'}).waitFor();

  // Edit on the webhook's page: subscribe to job.retried as well, as Slack text.
  await page.click(`a[href="#/webhooks/${hook.id}"]`);
  const edit = page.locator('[data-test=edit-webhook] form');
  await edit.waitFor();
  assert.equal(await edit.locator('input[name=url]').inputValue(), receiver.url);
  await edit.locator('input[value="job.retried"]').check();
  await edit.locator('select[name=format]').selectOption('slack');
  await nextRefresh(page);  // a refresh meanwhile keeps what was typed
  assert.ok(await edit.locator('input[value="job.retried"]').isChecked());
  await page.click('[data-test=save-webhook]');
  await notice(page, 'Webhook on-call alerts saved');
  const edited = await api.get(`/outgoing-webhooks/${hook.id}`);
  assert.deepEqual(edited.events.toSorted(),
                   ['job.deadlettered', 'job.failed', 'job.retried', 'queue.paused']);
  assert.equal(edited.format, 'slack');
  await page.locator('[data-test=webhook-facts]', {hasText: 'slack'}).waitFor();
  // The failed test is listed too: tried once, given up.
  const failedTest = deliveryRows(page).filter({has: page.locator('.badge', {hasText: 'failed'})});
  assert.equal(await failedTest.count(), 1);
  assert.deepEqual((await failedTest.locator('td').allInnerTexts()).slice(0, 5),
                   ['webhook.test', 'failed', '1', '500', 'HTTP 500']);
  await screenshot(page, 'webhook-detail');

  // Delete: the dialog names the webhook; cancel keeps it.
  await page.click('a[href="#/webhooks"]');
  await row.locator('[data-test=delete]').click();
  const dialog = page.locator('dialog');
  await dialog.locator('h2', {hasText: 'Delete webhook “on-call alerts”?'}).waitFor();
  assert.match(await dialog.innerText(), new RegExp(receiver.url.replace(/[./]/g, '\\$&')));
  await dialog.locator('button', {hasText: 'Cancel'}).click();
  assert.equal((await api.get('/outgoing-webhooks')).length, 1);
  await row.locator('[data-test=delete]').click();
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Webhook on-call alerts deleted');
  await page.locator('p.empty', {hasText: 'No webhooks yet'}).waitFor();
  assert.deepEqual(await api.get('/outgoing-webhooks'), []);

  // The refused URL above logged its 400; nothing else may appear.
  assert.deepEqual(browser.errors.filter((e) => !e.includes('status of 400')), [],
                   'no console errors (CSP violations, exceptions)');
});

test('viewer: the webhooks and their deliveries, read-only', async (t) => {
  const {receiver, server, api, browser, page} = await setUp(t, {
    apiKeys: ['admin:adm-secret', 'viewer:view-secret'], key: 'adm-secret'});
  const hook = await api.post('/outgoing-webhooks', {
    name: 'ops <b>alerts</b>', url: receiver.url, events: ['job.deadlettered'], format: 'slack'});
  await api.post(`/outgoing-webhooks/${hook.id}/test`);
  await api.put(`/outgoing-webhooks/${hook.id}`, {enabled: false});

  await page.goto(`${server.url}/#/webhooks`);
  await page.fill('[data-test=api-key]', 'view-secret');
  await page.click('[data-test=signin] button[type=submit]');
  const row = hookRow(page, 'ops <b>alerts</b>');
  await row.waitFor();
  assert.equal(await page.locator('main b').count(), 0, 'names are text, never markup');
  assert.match(await row.innerText(), /slack/);
  assert.match(await row.innerText(), /disabled/);
  // A webhook URL can be a credential: viewers see only scheme and host.
  const redacted = `${new URL(receiver.url).origin}/…`;
  assert.ok((await row.innerText()).includes(redacted), await row.innerText());
  assert.ok(!(await page.locator('main').innerText()).includes('/hooks'), 'no URL path');
  assert.equal(await page.locator('main button').count(), 0, 'no actions');
  assert.equal(await page.locator('main form, main input').count(), 0, 'no forms');
  await assertNoStrayValues(page);
  await screenshot(page, 'viewer-webhooks');

  await row.locator('a.webhook-name').click();
  await deliveryRows(page).first().waitFor();
  assert.ok((await page.locator('main').innerText()).includes(redacted));
  assert.ok(!(await page.locator('main').innerText()).includes('/hooks'), 'no URL path');
  assert.equal(await page.locator('main button').count(), 0);
  assert.equal(await page.locator('main form, main input').count(), 0);
  await deliveryRows(page).first().locator('summary').click();
  const body = page.locator('tr.body-row pre');
  await body.waitFor();
  assert.equal(await deliveryRows(page).first().getAttribute('data-event'), 'webhook.test');
  assert.equal(typeof JSON.parse(await body.innerText()).text, 'string', 'a slack message');
  await assertNoStrayValues(page);
  await screenshot(page, 'viewer-webhook');
  assert.deepEqual(browser.errors, [], 'no console errors');
});
