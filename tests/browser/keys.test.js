// The console's API keys page in a real browser against a real `redrive
// serve`: an admin creates a queue-scoped worker key, whose secret is shown
// once and then works as a Bearer key from the test; revoking it makes it
// 401; a viewer key made on the page does not see the page in the menu and,
// opening its address, gets the server's 403 in words. On a server without
// keys, the first key ends the no-key mode without losing its secret.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {setUp} from './support/fixture.js';
import {screenshot, notice, assertNoStrayValues} from './support/browser.js';

const keyRow = (page, name) => page.locator(`table[data-test=keys] tr[data-name="${name}"]`);

// An enqueue with `key`: its status and the server's answer.
async function enqueueWith(server, key, queue) {
  const r = await fetch(`${server.url}/api/v1/jobs`, {
    method: 'POST', headers: {Authorization: `Bearer ${key}`, 'Content-Type': 'application/json'},
    body: JSON.stringify({queue_name: queue, payload: {}})});
  return {status: r.status, body: await r.json()};
}

async function signIn(page, key) {
  await page.fill('[data-test=api-key]', key);
  await page.click('[data-test=signin] button[type=submit]');
}

// Creates a key on the page; returns the secret shown once.
async function createKey(page, {name, role, queues = '', expiresIn = ''}) {
  const form = page.locator('[data-test=new-key] form');
  await form.locator('input[name=name]').fill(name);
  await form.locator('select[name=role]').selectOption(role);
  if (queues) await form.locator('input[name=queues]').fill(queues);
  if (expiresIn) await form.locator('input[name=expires_in]').fill(expiresIn);
  await page.click('[data-test=create-key]');
  await page.locator('[data-test=secret-once] h2', {hasText: `Key “${name}” created`}).waitFor();
  return page.locator('[data-test=secret-value]').inputValue();
}

test('admin: create (the secret once), the key works, revoke makes it 401; a viewer has no ' +
     'Keys page', async (t) => {
  const {server, api, browser, page} = await setUp(t, {
    apiKeys: ['admin@root:adm-secret'], key: 'adm-secret'});

  await page.goto(`${server.url}/`);
  await signIn(page, 'adm-secret');
  await page.locator('nav a[data-nav=keys]').waitFor();
  await page.click('nav a[data-nav=keys]');
  await page.locator('h1', {hasText: 'API keys'}).waitFor();
  await page.locator('p.empty', {hasText: 'No stored keys yet'}).waitFor();
  assert.equal(await page.locator('[data-test=no-key-mode]').count(), 0);

  // Refused by the server: a key needs a name.
  await page.click('[data-test=create-key]');
  const form = page.locator('[data-test=new-key] form');
  await form.locator('[data-field-error=name]', {hasText: 'VALIDATION_ERROR'}).waitFor();
  assert.equal(await form.locator('input[name=name]').getAttribute('aria-invalid'), 'true');
  // Queues are a worker key's only.
  await form.locator('select[name=role]').selectOption('viewer');
  assert.ok(await form.locator('input[name=queues]').isDisabled());
  // An expiry that is not a duration is refused before anything is sent.
  await form.locator('select[name=role]').selectOption('worker');
  await form.locator('input[name=name]').fill('mailer');
  await form.locator('input[name=expires_in]').fill('soon');
  await page.click('[data-test=create-key]');
  await form.locator('[data-field-error=expires_at]', {hasText: 'not a duration'}).waitFor();
  assert.deepEqual(await api.get('/api-keys'), []);

  // A worker key for the emails queue, expiring in 90 days: the secret, once.
  const secret = await createKey(page, {name: 'mailer', role: 'worker', queues: 'emails',
                                        expiresIn: '90d'});
  assert.match(secret, /^sk_rdk_[A-Za-z0-9_-]{43}$/);
  const box = page.locator('[data-test=secret-once]');
  assert.match(await box.innerText(), /Copy it now, it will not be shown again/);
  assert.match(await box.innerText(), /A worker key on queues emails, expiring in 89d23h/);
  assert.equal(await page.locator('.message.error').count(), 0, 'the old error is gone');
  const row = keyRow(page, 'mailer');
  await row.waitFor();
  assert.equal(await row.getAttribute('data-state'), 'active');
  const cells = await row.locator('td').allInnerTexts();
  assert.deepEqual(cells.slice(0, 4), ['mailer', 'worker', 'emails', `${secret.slice(0, 15)}…`]);
  assert.equal(cells[5], 'never', 'not used yet');
  assert.match(cells[6], /^in 89d23h$/);
  assert.equal(await form.locator('input[name=name]').inputValue(), '', 'the form is reset');
  await assertNoStrayValues(page);
  await screenshot(page, 'keys-created-secret');
  const [stored] = await api.get('/api-keys');
  assert.equal(stored.key, undefined, 'no later answer has the secret');
  assert.deepEqual(stored.queues, ['emails']);

  // The key works as a Bearer key, within its scope.
  const ok = await enqueueWith(server, secret, 'emails');
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  const outside = await enqueueWith(server, secret, 'reports');
  assert.equal(outside.status, 403);
  assert.equal(outside.body.code, 'ACCESS_DENIED');

  // Dismissed, the secret is gone for good.
  await page.click('[data-test=secret-dismiss]');
  assert.equal(await box.count(), 0);
  await page.reload();
  await row.waitFor();
  assert.ok(!(await page.locator('main').innerText()).includes(secret), 'shown only once');

  // Revoke, after a dialog with a reason (kept in the audit log): 401 at once.
  await row.locator('[data-test=revoke]').click();
  const dialog = page.locator('dialog');
  await dialog.locator('h2', {hasText: 'Revoke key “mailer”?'}).waitFor();
  await dialog.locator('button', {hasText: 'Cancel'}).click();
  assert.equal((await enqueueWith(server, secret, 'emails')).status, 201, 'cancel keeps it');
  await row.locator('[data-test=revoke]').click();
  await page.fill('[data-test=field-reason]', 'mailer decommissioned');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Key mailer revoked');
  await row.locator('[data-test=key-state]', {hasText: 'revoked'}).waitFor();
  assert.equal(await row.locator('[data-test=revoke]').count(), 0);
  const refused = await enqueueWith(server, secret, 'emails');
  assert.equal(refused.status, 401);
  assert.match(refused.body.message, /API key "mailer" was revoked/);
  const [revoke] = (await api.get('/audit?action=api_key.revoke')).entries;
  assert.equal(revoke.actor, 'root');
  assert.equal(revoke.reason, 'mailer decommissioned');
  await assertNoStrayValues(page);
  await screenshot(page, 'keys-revoked');

  // A viewer key made here: signed in with it, the menu has no Keys page,
  // and its address shows the server's 403 in words.
  const viewerSecret = await createKey(page, {name: 'auditor', role: 'viewer'});
  await page.click('[data-test=secret-dismiss]');
  await page.click('#signout');
  await signIn(page, viewerSecret);
  await page.locator('#role', {hasText: 'viewer'}).waitFor();
  await page.locator('nav a[data-nav=schedules]').waitFor();
  assert.equal(await page.locator('nav a[data-nav=keys]').isVisible(), false);
  const forbidden = page.locator('[data-test=forbidden]');
  await forbidden.waitFor();  // the page shown before signing out: #/keys
  assert.match(await forbidden.innerText(),
               /ACCESS_DENIED the viewer role may not use this route/);
  assert.equal(await page.locator('h1').innerText(), 'Not allowed');
  assert.equal(await page.locator('main form, main button').count(), 0);
  await page.click('nav a[data-nav=overview]');
  await page.locator('h1', {hasText: 'Overview'}).waitFor();
  await page.goto(`${server.url}/#/keys`);
  await forbidden.waitFor();
  await assertNoStrayValues(page);
  await screenshot(page, 'viewer-keys-forbidden');

  // The 400 of the nameless key and the viewer's 403s were logged; nothing else.
  assert.deepEqual(browser.errors.filter((e) => !/status of (400|403)/.test(e)), [],
                   'no console errors (CSP violations, exceptions)');
});

test('no keys yet: the first key ends the no-key mode, its secret stays until dismissed',
     async (t) => {
  const {server, browser, page} = await setUp(t);

  await page.goto(`${server.url}/#/keys`);
  await page.locator('[data-test=no-key-mode]').waitFor();
  const secret = await createKey(page, {name: 'first admin', role: 'admin'});
  const box = page.locator('[data-test=secret-once]');
  assert.match(await box.innerText(), /This server now requires a key/);
  await page.locator('table[data-test=keys] tr[data-name="first admin"]').waitFor();
  // The server now wants a key; the poll does not replace the page meanwhile.
  const last = await page.locator('#updated').getAttribute('title');
  await page.waitForFunction((t) => document.getElementById('updated').title !== t, last,
                             {timeout: 15000});
  assert.equal(await page.locator('[data-test=secret-value]').inputValue(), secret);
  await screenshot(page, 'keys-first-key');

  await page.click('[data-test=secret-dismiss]');
  const signin = page.locator('[data-test=signin]');
  await signin.locator('text=This server now requires an API key').waitFor();
  await signIn(page, secret);
  await page.locator('#role', {hasText: 'admin'}).waitFor();
  await page.locator('table[data-test=keys] tr[data-name="first admin"]').waitFor();
  assert.equal(await page.locator('[data-test=no-key-mode]').count(), 0);
  assert.deepEqual(browser.errors, [], 'no console errors');
});
