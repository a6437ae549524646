// Live events through the real `redrive serve` binary, spoken on the wire
// as Spooled's SDK does: server-sent events (GET /api/v1/events...) read
// from fetch's body stream, and the WebSocket (GET /api/v1/ws?token=...)
// with its subscribe messages. Run by CTest (realtime_e2e) with node's
// built-in WebSocket (--experimental-websocket on Node 20).
import assert from 'node:assert/strict';
import {after, before, test} from 'node:test';

import {client} from '../browser/support/client.js';
import {startServer} from '../browser/support/server.js';

const ADMIN = 'admin-key-0123456789abcdef';
const VIEWER = 'viewer-key-0123456789abcdef';
let server;
let admin;

before(async () => {
  server = await startServer({
    apiKeys: [`admin:${ADMIN}`, `viewer:${VIEWER}`],
    args: ['--event-ping-interval', '200ms', '--max-event-streams', '4'],
  });
  admin = client(server.url, ADMIN);
});
after(async () => { await server?.stop(); });

// An SSE stream read as it arrives: its events (parsed `data:` lines) and
// its comments (": ping").
async function openSse(path, key) {
  const controller = new AbortController();
  const response = await fetch(`${server.url}${path}`,
                               {headers: {Authorization: `Bearer ${key}`},
                                signal: controller.signal});
  const stream = {response, events: [], comments: [], ended: false, waiters: []};
  stream.close = () => controller.abort();
  if (!response.ok) return stream;
  (async () => {
    const decoder = new TextDecoder();
    let text = '';
    try {
      for await (const chunk of response.body) {
        text += decoder.decode(chunk, {stream: true});
        let at;
        while ((at = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, at);
          text = text.slice(at + 2);
          for (const line of frame.split('\n')) {
            if (line.startsWith('data: ')) stream.events.push(JSON.parse(line.slice(6)));
            else if (line.startsWith(':')) stream.comments.push(line.slice(1).trim());
          }
        }
        stream.waiters.forEach((w) => w());
      }
    } catch { /* aborted */ }
    stream.ended = true;
    stream.waiters.forEach((w) => w());
  })();
  return stream;
}

// Resolves once `condition()` holds, re-checked whenever `stream` gets data.
function until(stream, condition, what) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 10000);
    const check = () => {
      if (condition()) {
        clearTimeout(timer);
        resolve();
      }
    };
    stream.waiters.push(check);
    check();
  });
}

test('SSE: a job\'s life arrives in Spooled\'s format, viewers without the result', async () => {
  const all = await openSse('/api/v1/events', ADMIN);
  const viewer = await openSse('/api/v1/events', VIEWER);
  assert.equal(all.response.status, 200);
  assert.match(all.response.headers.get('content-type'), /^text\/event-stream/);
  await until(all, () => all.comments.includes('connected'), 'the first comment');
  await until(viewer, () => viewer.comments.includes('connected'), 'the viewer\'s first comment');

  const id = await admin.enqueue('emails', {to: 'a@example.com'});
  await admin.completeNext('emails', {sent: true});
  const done = (s) => s.events.some((e) => e.type === 'JobCompleted' && e.data.job_id === id);
  await until(all, () => done(all), 'JobCompleted');
  await until(viewer, () => done(viewer), 'JobCompleted (viewer)');

  const mine = all.events.filter((e) => e.data.job_id === id);
  assert.deepEqual(mine.map((e) => e.type),
                   ['JobCreated', 'JobStatusChange', 'JobStatusChange', 'JobCompleted']);
  assert.equal(mine[0].data.queue_name, 'emails');
  assert.deepEqual([mine[1].data.old_status, mine[1].data.new_status], ['pending', 'processing']);
  assert.deepEqual(mine[3].data.result, {sent: true});
  assert.equal(typeof mine[3].data.duration_ms, 'number');
  assert.match(mine[3].data.timestamp, /^\d{4}-\d\d-\d\dT/);
  const seen = viewer.events.find((e) => e.type === 'JobCompleted' && e.data.job_id === id);
  assert.equal(seen.data.result, undefined);

  await until(all, () => all.comments.includes('ping'), 'a keep-alive');
  all.close();
  viewer.close();
});

test('SSE: job and queue streams carry only their job or queue', async () => {
  const reports = await openSse('/api/v1/events/queues/reports', ADMIN);
  await until(reports, () => reports.comments.includes('connected'), 'connected');
  const other = await admin.enqueue('emails', {});
  const id = await admin.enqueue('reports', {});
  const job = await openSse(`/api/v1/events/jobs/${id}`, ADMIN);
  await until(job, () => job.comments.includes('connected'), 'connected');
  await admin.claim('reports');
  await until(job, () => job.events.some((e) => e.type === 'JobStatusChange'), 'the claim');
  await until(reports, () => reports.events.length >= 2, 'the reports events');
  assert.ok(reports.events.every((e) => e.data.queue_name === 'reports'));
  assert.ok(!reports.events.some((e) => e.data.job_id === other));
  // The job's JobCreated may come too: the hub can still be delivering it
  // when the stream opens after the enqueue's answer.
  assert.ok(job.events.every((e) => e.data.job_id === id));
  assert.deepEqual(job.events.filter((e) => e.type !== 'JobCreated')
                       .map((e) => [e.type, e.data.new_status]),
                   [['JobStatusChange', 'processing']]);
  job.close();
  reports.close();
});

test('SSE: refused without a key, and past --max-event-streams with 503', async () => {
  const anonymous = await fetch(`${server.url}/api/v1/events`);
  assert.equal(anonymous.status, 401);
  const open = [];
  // The earlier tests' streams may still be closing on the server.
  for (let tries = 0; open.length < 4 && tries < 50; ++tries) {
    const s = await openSse('/api/v1/events', ADMIN);
    if (s.response.status === 200) open.push(s);
    else await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(open.length, 4);
  const refused = await fetch(`${server.url}/api/v1/events`,
                              {headers: {Authorization: `Bearer ${ADMIN}`}});
  assert.equal(refused.status, 503);
  const body = await refused.json();
  assert.equal(body.code, 'SERVICE_UNAVAILABLE');
  assert.match(body.message, /--max-event-streams/);
  open.forEach((s) => s.close());
});

test('WebSocket: a token in the query, Spooled\'s subscribe messages, pings', async () => {
  const login = await fetch(`${server.url}/api/v1/auth/login`, {
    method: 'POST',
    headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({api_key: ADMIN}),
  });
  assert.equal(login.status, 200);
  const {access_token: token} = await login.json();
  const wsUrl = server.url.replace(/^http/, 'ws');
  let ws;
  // Wait for a free stream: the previous test's are closing.
  for (let tries = 0; tries < 50; ++tries) {
    ws = new WebSocket(`${wsUrl}/api/v1/ws?token=${encodeURIComponent(token)}`);
    const opened = await new Promise((resolve) => {
      ws.onopen = () => resolve(true);
      ws.onerror = () => resolve(false);
    });
    if (opened) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const stream = {events: [], waiters: []};
  ws.onmessage = (m) => {
    stream.events.push(JSON.parse(m.data));
    stream.waiters.forEach((w) => w());
  };
  ws.send(JSON.stringify({type: 'subscribe', filter: {queueName: 'ws-b'}, requestId: 'req_1'}));
  await until(stream, () => stream.events.some((e) => e.type === 'subscribed'), 'subscribed');
  const reply = stream.events.find((e) => e.type === 'subscribed');
  assert.equal(reply.request_id, 'req_1');
  assert.deepEqual(reply.filter, {queue_name: 'ws-b'});

  await admin.enqueue('ws-a', {});
  const id = await admin.enqueue('ws-b', {});
  await until(stream, () => stream.events.some((e) => e.type === 'JobCreated'), 'JobCreated');
  const created = stream.events.filter((e) => e.type === 'JobCreated');
  assert.deepEqual(created.map((e) => e.data.job_id), [id]);
  await until(stream, () => stream.events.some((e) => e.type === 'Ping'), 'a Ping');

  ws.send(JSON.stringify({type: 'unsubscribe', filter: {queueName: 'ws-b'}, requestId: 'req_2'}));
  await until(stream, () => stream.events.some((e) => e.type === 'unsubscribed'), 'unsubscribed');
  const closed = new Promise((r) => { ws.onclose = r; });
  ws.close();
  await closed;
});

test('WebSocket route without an upgrade is a 400', async () => {
  const r = await fetch(`${server.url}/api/v1/ws`, {headers: {Authorization: `Bearer ${ADMIN}`}});
  assert.equal(r.status, 400);
});
