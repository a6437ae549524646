// The console's Schedules pages in a real browser against a real `redrive
// serve`: a cron expression the server refuses shows its error next to the
// field, a good one is created with its next run, paused (with a reason, kept
// in the audit log) and resumed, edited, triggered now (a manual run in the
// history, with its job), and deleted after a confirmation; a viewer reads
// the pages without any action. The form previews the next 5 runs of what is
// typed, in the zone typed, or the server's refusal of it.
import {test} from 'node:test';
import assert from 'node:assert/strict';
import {setUp} from './support/fixture.js';
import {screenshot, notice, assertNoStrayValues} from './support/browser.js';

const scheduleRow = (page, name) =>
  page.locator(`table[data-test=schedules] tr[data-name="${name}"]`);
const runRows = (page) => page.locator('table[data-test=runs] tbody tr');
// The instants a form's cron preview lists, as the server wrote them.
const previewTimes = (form) => form.locator('[data-test=cron-preview] li time')
  .evaluateAll((times) => times.map((t) => t.getAttribute('datetime')));

// Resolves once the console's poll has refreshed the page again (app.js
// stamps #updated's title with the time of each refresh it completes).
async function nextRefresh(page) {
  const last = await page.locator('#updated').getAttribute('title');
  await page.waitForFunction((t) => document.getElementById('updated').title !== t, last,
                             {timeout: 15000});
}

test('admin: create (a refused cron first), pause/resume, edit, trigger now, delete',
     async (t) => {
  const {server, api, browser, page} = await setUp(t);

  await page.goto(`${server.url}/`);
  await page.click('nav a[data-nav=schedules]');
  await page.locator('h1', {hasText: 'Schedules'}).waitFor();
  assert.ok(await page.locator('nav a[data-nav=schedules]').evaluate((a) =>
    a.classList.contains('active')));
  await page.locator('p.empty', {hasText: 'No schedules yet'}).waitFor();

  // A cron expression the server refuses: its VALIDATION_ERROR, naming the
  // cron field and the position, is shown next to the field.
  const form = page.locator('[data-test=new-schedule] form');
  await form.locator('input[name=name]').fill('nightly report');
  await form.locator('input[name=queue_name]').fill('reports');
  await form.locator('input[name=cron_expression]').fill('0 30 2 * * FRY');
  await form.locator('input[name=timezone]').fill('Europe/Berlin');
  await form.locator('textarea[name=payload_template]').fill('{"report": "daily"}');
  await page.click('[data-test=create-schedule]');
  const cronError = form.locator('[data-field-error=cron_expression]');
  await cronError.locator('text=VALIDATION_ERROR').waitFor();
  assert.match(await cronError.innerText(), /day_of_week at position 12: unknown value 'FRY'/);
  assert.equal(await form.locator('input[name=cron_expression]').getAttribute('aria-invalid'),
               'true');
  await page.locator('.message.error', {hasText: 'VALIDATION_ERROR'}).waitFor();
  assert.deepEqual(await api.get('/schedules'), []);
  await screenshot(page, 'schedules-create-error');

  // A payload that is not JSON is refused before anything is sent.
  await form.locator('input[name=cron_expression]').fill('0 30 2 * * *');
  await form.locator('textarea[name=payload_template]').fill('{"report":');
  await page.click('[data-test=create-schedule]');
  await form.locator('[data-field-error=payload_template]', {hasText: 'not valid JSON'}).waitFor();
  assert.deepEqual(await api.get('/schedules'), []);

  // Created for real: listed with its next run.
  await form.locator('textarea[name=payload_template]').fill('{"report": "daily"}');
  await page.click('[data-test=create-schedule]');
  await notice(page, 'Schedule nightly report created: next run in ');
  const row = scheduleRow(page, 'nightly report');
  await row.waitFor();
  assert.equal(await page.locator('.message.error').count(), 0, 'the old error is gone');
  assert.equal(await row.locator('[data-test=cron]').innerText(), '0 30 2 * * *');
  assert.match(await row.innerText(), /Europe\/Berlin/);
  assert.match(await row.innerText(), /reports/);
  assert.match(await row.locator('[data-test=next-run]').innerText(), /^in \d/);
  assert.equal(await row.locator('[data-test=last-run]').innerText(), '—');
  assert.equal(await row.locator('[data-test=schedule-state]').innerText(), 'active');
  assert.equal(await form.locator('input[name=name]').inputValue(), '', 'the form is reset');
  const [created] = await api.get('/schedules');
  assert.equal(created.timezone, 'Europe/Berlin');
  assert.deepEqual(created.payload_template, {report: 'daily'});
  assert.equal(created.overlap_policy, 'allow');
  assert.equal(await row.locator('[data-test=next-run] time').getAttribute('datetime'),
               created.next_run_at);
  await assertNoStrayValues(page);
  await screenshot(page, 'schedules-created');

  // Pause with a reason: no next run; the reason is in the audit log.
  await row.locator('[data-test=pause]').click();
  await page.locator('dialog h2', {hasText: 'Pause schedule “nightly report”?'}).waitFor();
  await page.fill('[data-test=field-reason]', 'report DB migration');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Schedule nightly report paused');
  await row.locator('[data-test=schedule-state]', {hasText: 'paused'}).waitFor();
  assert.equal(await row.locator('[data-test=next-run]').innerText(), 'paused');
  const paused = await api.get(`/schedules/${created.id}`);
  assert.equal(paused.is_active, false);
  assert.equal(paused.next_run_at, null);
  const audit = await api.get('/audit?action=schedule.pause');
  assert.equal(audit.entries.length, 1);
  assert.equal(audit.entries[0].reason, 'report DB migration');
  assert.deepEqual(audit.entries[0].targets, [`schedule:${created.id}`]);

  // Resume: the next run is back.
  await row.locator('[data-test=resume]').click();
  await notice(page, 'Schedule nightly report resumed: next run in ');
  await row.locator('[data-test=schedule-state]', {hasText: 'active'}).waitFor();
  assert.match(await row.locator('[data-test=next-run]').innerText(), /^in \d/);
  assert.equal((await api.get(`/schedules/${created.id}`)).is_active, true);

  // Its page: the settings, the next run also in its own zone.
  await row.locator('a.schedule-name').click();
  const facts = page.locator('[data-test=schedule-facts]');
  await facts.waitFor();
  assert.match(await facts.innerText(), /0 30 2 \* \* \*/);
  assert.match(await facts.innerText(), /02:30:00 (CET|CEST|GMT\+1|GMT\+2)/);
  assert.match(await facts.innerText(), /"report": "daily"/);
  await page.locator('p.empty', {hasText: 'No runs yet'}).waitFor();

  // Edit: a new expression; only what changed is sent, a refresh meanwhile
  // keeps what was typed. The preview starts from the schedule's own
  // expression and follows the new one.
  const edit = page.locator('[data-test=edit-schedule] form');
  await edit.locator('[data-test=cron-preview][data-cron="0 30 2 * * *"]').waitFor();
  assert.equal(await edit.locator('.cron-preview-title').innerText(),
               'Next 5 runs (Europe/Berlin)');
  await edit.locator('input[name=cron_expression]').fill('@every 1h');
  await edit.locator('[data-test=cron-preview][data-cron="@every 1h"]').waitFor();
  const hourly = await previewTimes(edit);
  assert.equal(hourly.length, 5);
  for (let i = 1; i < 5; ++i) {
    assert.equal(Date.parse(hourly[i]) - Date.parse(hourly[i - 1]), 3600e3, hourly.join(' '));
  }
  await edit.locator('select[name=overlap_policy]').selectOption('skip_if_running');
  await nextRefresh(page);
  assert.equal(await edit.locator('input[name=cron_expression]').inputValue(), '@every 1h');
  await page.click('[data-test=save-schedule]');
  await notice(page, 'Schedule nightly report saved');
  await facts.locator('code', {hasText: '@every 1h'}).waitFor();
  const edited = await api.get(`/schedules/${created.id}`);
  assert.equal(edited.cron_expression, '@every 1h');
  assert.equal(edited.overlap_policy, 'skip_if_running');
  assert.equal(edited.timezone, 'Europe/Berlin');
  const update = (await api.get('/audit?action=schedule.update')).entries[0];
  assert.equal(update.status, 200);

  // Trigger now: a manual run appears in the history, with its job.
  await page.click('[data-test=schedule-actions] [data-test=trigger]');
  await page.locator('dialog h2', {hasText: 'Trigger schedule “nightly report” now?'}).waitFor();
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Schedule nightly report triggered: job ');
  const run = runRows(page).first();
  await run.waitFor();
  assert.equal(await runRows(page).count(), 1);
  assert.equal(await run.getAttribute('data-kind'), 'manual');
  assert.equal(await run.getAttribute('data-status'), 'pending');
  const [history] = await api.get(`/schedules/${created.id}/history`);
  const job = await api.get(`/jobs/${history.job_id}`);
  assert.equal(job.queue_name, 'reports');
  assert.deepEqual(job.payload, {report: 'daily'});
  assert.equal(await run.locator(`a[href="#/jobs/${history.job_id}"]`).count(), 1);
  await page.locator('[data-test=schedule-facts] a', {hasText: history.job_id}).waitFor();

  // Again while that job waits: skip_if_running holds it back; the server's
  // CONFLICT is shown and the skipped run is listed.
  await page.click('[data-test=schedule-actions] [data-test=trigger]');
  await page.click('[data-test=dialog-confirm]');
  await page.locator('.message.error', {hasText: 'CONFLICT'}).waitFor();
  await runRows(page).nth(1).waitFor();
  assert.equal(await runRows(page).first().getAttribute('data-status'), 'skipped');
  assert.match(await runRows(page).first().innerText(), /the previous job .* is still pending/);

  // The job runs: the run's status follows it.
  await api.completeNext('reports');
  await page.locator(`table[data-test=runs] tr[data-id="${history.id}"] .badge`,
                     {hasText: 'completed'}).first().waitFor();
  await assertNoStrayValues(page);
  await screenshot(page, 'schedule-detail');

  // Delete: the dialog names the expression; cancel keeps it.
  await page.click('[data-test=schedule-actions] [data-test=delete]');
  const dialog = page.locator('dialog');
  await dialog.locator('h2', {hasText: 'Delete schedule “nightly report”?'}).waitFor();
  assert.match(await dialog.innerText(), /@every 1h/);
  await dialog.locator('button', {hasText: 'Cancel'}).click();
  assert.equal((await api.get('/schedules')).length, 1);
  await page.click('[data-test=schedule-actions] [data-test=delete]');
  await page.click('[data-test=dialog-confirm]');
  await notice(page, 'Schedule nightly report deleted');
  await page.waitForURL(/#\/schedules$/);
  await page.locator('p.empty', {hasText: 'No schedules yet'}).waitFor();
  assert.deepEqual(await api.get('/schedules'), []);
  assert.equal((await api.get(`/jobs/${history.job_id}`)).status, 'completed', 'its jobs stay');

  // The refused cron above logged its 400, the held-back trigger its 409;
  // nothing else may appear.
  assert.deepEqual(browser.errors.filter((e) => !/status of (400|409)/.test(e)), [],
                   'no console errors (CSP violations, exceptions)');
});

test('admin: the form previews the next 5 runs as the cron is typed, or the refusal',
     async (t) => {
  const {server, browser, page} = await setUp(t);
  const asked = [];  // the cron_expression of each preview request
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname === '/api/v1/schedules/preview') {
      asked.push(url.searchParams.get('cron_expression'));
    }
  });
  await page.goto(`${server.url}/#/schedules`);
  const form = page.locator('[data-test=new-schedule] form');
  const preview = form.locator('[data-test=cron-preview]');
  const cron = form.locator('input[name=cron_expression]');
  await preview.locator('text=Type a cron expression to see its next runs.').waitFor();
  assert.deepEqual(asked, [], 'nothing to preview yet');

  // Typed key by key: 02:30 every day in Berlin (03:00 on the day clocks
  // spring forward, when 02:30 does not exist).
  await form.locator('input[name=timezone]').fill('Europe/Berlin');
  await cron.pressSequentially('0 30 2 * * *');
  await form.locator('[data-test=cron-preview][data-cron="0 30 2 * * *"]').waitFor();
  assert.equal(await preview.locator('.cron-preview-title').innerText(),
               'Next 5 runs (Europe/Berlin)');
  const daily = await previewTimes(form);
  assert.equal(daily.length, 5, daily.join(' '));
  for (const t of daily) assert.match(t, /T(02:30|03:00):00\+0[12]:00$/);
  for (let i = 1; i < 5; ++i) assert.ok(Date.parse(daily[i]) > Date.parse(daily[i - 1]));
  assert.match(await preview.locator('li').first().innerText(),
               /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} [A-Z][a-z]{2} \d{4}, (02:30|03:00):00 UTC\+0[12]:00 in /);
  // Asked after pauses in the typing, not at every key; the last answer is
  // the whole expression's.
  assert.ok(asked.length < '0 30 2 * * *'.length, asked.join(' | '));
  assert.equal(asked.at(-1), '0 30 2 * * *');

  // A bad expression: the server's refusal, naming the cron field and the
  // position, in place of the list.
  await cron.pressSequentially('X');
  await form.locator('[data-test=cron-preview][data-cron="0 30 2 * * *X"]').waitFor();
  assert.equal(await preview.locator('[data-test=cron-preview-error]').innerText(),
               "VALIDATION_ERROR: day_of_week at position 12: unknown value '*X'");
  assert.equal(await preview.locator('li').count(), 0, 'the list is gone');
  await cron.fill('0 30 2 * * FRY');
  await form.locator('[data-test=cron-preview][data-cron="0 30 2 * * FRY"]').waitFor();
  assert.equal(await preview.locator('[data-test=cron-preview-error]').innerText(),
               "VALIDATION_ERROR: day_of_week at position 12: unknown value 'FRY'");
  await screenshot(page, 'schedules-cron-preview-error');

  // Another zone, 6 fields: the list again, in that zone's offsets.
  await cron.fill('0 0 9 * * MON-FRI');
  await form.locator('input[name=timezone]').fill('America/New_York');
  await preview.locator('.cron-preview-title', {hasText: 'Next 5 runs (America/New_York)'})
    .waitFor();
  await form.locator('[data-test=cron-preview][data-cron="0 0 9 * * MON-FRI"]').waitFor();
  for (const t of await previewTimes(form)) assert.match(t, /T09:00:00-0[45]:00$/);
  assert.doesNotMatch(await preview.innerText(), /Sat|Sun/);
  await assertNoStrayValues(page);
  await screenshot(page, 'schedules-cron-preview');

  // An unknown zone is refused naming it; an empty expression asks for one.
  await form.locator('input[name=timezone]').fill('Mars/Olympus');
  await preview.locator('[data-test=cron-preview-error]',
                        {hasText: "VALIDATION_ERROR: unknown timezone 'Mars/Olympus'"}).waitFor();
  await cron.fill('');
  await preview.locator('text=Type a cron expression to see its next runs.').waitFor();
  assert.deepEqual(browser.errors.filter((e) => !/status of 400/.test(e)), [],
                   'no console errors but the refused previews');
});

test('viewer: the schedules and their runs, read-only', async (t) => {
  const {server, api, browser, page} = await setUp(t, {
    apiKeys: ['admin:adm-secret', 'viewer:view-secret'], key: 'adm-secret'});
  const s = await api.post('/schedules', {name: 'cleanup <b>tmp</b>',
                                          cron_expression: '0 3 * * *', queue_name: 'maintenance'});
  await api.post(`/schedules/${s.id}/trigger`);

  await page.goto(`${server.url}/#/schedules`);
  await page.fill('[data-test=api-key]', 'view-secret');
  await page.click('[data-test=signin] button[type=submit]');
  const row = scheduleRow(page, 'cleanup <b>tmp</b>');
  await row.waitFor();
  assert.equal(await page.locator('main b').count(), 0, 'names are text, never markup');
  assert.match(await row.locator('[data-test=next-run]').innerText(), /^in \d/);
  assert.equal(await page.locator('main button').count(), 0, 'no actions');
  assert.equal(await page.locator('main form, main input').count(), 0, 'no forms');
  await assertNoStrayValues(page);
  await screenshot(page, 'viewer-schedules');

  await row.locator('a.schedule-name').click();
  await runRows(page).first().waitFor();
  assert.equal(await runRows(page).first().getAttribute('data-kind'), 'manual');
  assert.equal(await page.locator('main button').count(), 0);
  assert.equal(await page.locator('main form, main input').count(), 0);
  await assertNoStrayValues(page);
  await screenshot(page, 'viewer-schedule');
  assert.deepEqual(browser.errors, [], 'no console errors');
});
