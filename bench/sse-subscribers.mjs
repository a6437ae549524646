#!/usr/bin/env node
// SSE subscribers for bench/sse-subscribers.sh: holds S live event streams open
// on one Redrive server and counts what they receive, so that a benchmark can
// run with S subscribers connected and prove they really streamed.
//
//   node bench/sse-subscribers.mjs subscribe URL S
//       Opens S streams (GET URL, e.g. http://127.0.0.1:18411/api/v1/events),
//       each its own connection. It may be started before the server: the first
//       stream retries a refused connection every 10 ms (SSE_CONNECT_TIMEOUT_MS,
//       default 30000), and the other S-1 open once it is connected. On SIGTERM
//       or SIGINT it waits until no stream has received anything for
//       SSE_QUIET_MS (300) but at most SSE_DRAIN_MS (5000), prints ONE JSON line
//       on stdout (the counts) and exits 0. Progress goes to stderr. It gives up
//       by itself after SSE_MAX_SECONDS (3600), printing the line all the same.
//       Loopback URLs only. Sends `Authorization: Bearer $REDRIVE_API_KEY` when
//       that is set (none is needed by a loopback server without keys).
//
//   node bench/sse-subscribers.mjs table DIR
//       Prints sse-subscribers.sh's tables from DIR/runs.jsonl (one line per
//       run: run_id, mode, subscribers, round), DIR/results.jsonl (the peers
//       harness's result lines) and DIR/<run_id>.sse.json / .server-cpu.json.
//       Exits 1 when a run failed or its subscribers did not receive every
//       event (the problems are listed).
//
// Counting is done on the raw bytes (Buffer.indexOf), not by parsing JSON, so
// that the subscribers cost little CPU next to the server they measure. Every
// SSE event of Redrive is one `data: {"type":"…",…}` line ending in a blank
// line, after the opening `: connected` comment, so each event is exactly one
// occurrence of "\n\ndata: " (JSON strings cannot hold a raw newline).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {performance} from 'node:perf_hooks';

const env = process.env;
const num = (k, d) => (env[k] !== undefined && env[k] !== '' ? Number(env[k]) : d);
const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.error(`[sse-subscribers ${new Date().toISOString()}]`, ...a);

function die(message) {
  console.error(`sse-subscribers.mjs: ${message}`);
  process.exit(2);
}

function isLoopback(host) {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

// ---------------------------------------------------------------- subscribe

const P_EVENT = Buffer.from('\n\ndata: ');
const P_CREATED = Buffer.from('\n\ndata: {"type":"JobCreated"');
const P_COMPLETED = Buffer.from('\n\ndata: {"type":"JobCompleted"');
const P_ERROR = Buffer.from('\n\ndata: {"type":"Error"');
const PATTERNS = [P_EVENT, P_CREATED, P_COMPLETED, P_ERROR];
const CARRY = Math.max(...PATTERNS.map((p) => p.length)) - 1;

// Occurrences of pat in buf that start before `boundary` and end after it
// (those that straddle two reads), or all of them when boundary is -1.
function count(buf, pat, boundary = -1) {
  let n = 0;
  for (let i = buf.indexOf(pat); i >= 0; i = buf.indexOf(pat, i + 1)) {
    if (boundary < 0) n++;
    else if (i >= boundary) break;
    else if (i + pat.length > boundary) n++;
  }
  return n;
}

async function subscribe([url, countArg]) {
  if (!url || !countArg) die('usage: subscribe URL S');
  const u = new URL(url);
  if (u.protocol !== 'http:') die(`only http:// URLs: ${url}`);
  if (!isLoopback(u.hostname)) die(`only loopback addresses: ${url}`);
  const total = Number(countArg);
  if (!Number.isInteger(total) || total < 1) die(`S must be a positive integer: ${countArg}`);
  const connectTimeoutMs = num('SSE_CONNECT_TIMEOUT_MS', 30000);
  const quietMs = num('SSE_QUIET_MS', 300);
  const drainMs = num('SSE_DRAIN_MS', 5000);
  const maxSeconds = num('SSE_MAX_SECONDS', 3600);
  const headers = env.REDRIVE_API_KEY ? {authorization: `Bearer ${env.REDRIVE_API_KEY}`} : {};

  const t0 = now();
  let stopping = false;
  let lastDataAt = t0;
  let connectedCount = 0;
  let allConnectedMs = null;
  const streams = Array.from({length: total}, (_, i) => ({
    i, status: null, error: null, connected: false, connected_ms: null, events: 0, created: 0,
    completed: 0, errors: 0, error_messages: [], bytes: 0, ended: false, ended_ms: null,
    tail: Buffer.alloc(0), errorText: null, req: null,
  }));

  function onData(s, chunk) {
    lastDataAt = now();
    s.bytes += chunk.length;
    const joined = Buffer.concat([s.tail, chunk.subarray(0, CARRY)]);
    const b = s.tail.length;
    s.events += count(joined, P_EVENT, b) + count(chunk, P_EVENT);
    s.created += count(joined, P_CREATED, b) + count(chunk, P_CREATED);
    s.completed += count(joined, P_COMPLETED, b) + count(chunk, P_COMPLETED);
    const errors = count(joined, P_ERROR, b) + count(chunk, P_ERROR);
    if (!s.connected && (joined.includes(': connected\n\n') || chunk.includes(': connected\n\n'))) {
      s.connected = true;
      s.connected_ms = Math.round(now() - t0);
      if (++connectedCount === total) {
        allConnectedMs = s.connected_ms;
        log(`all ${total} streams connected, ${allConnectedMs} ms after start`);
      }
    }
    // The stream's last event says why the server ended it: keep its text.
    if (errors || s.errorText !== null) {
      s.errors += errors;
      const from = s.errorText === null ? Buffer.concat([s.tail, chunk]) : chunk;
      s.errorText = (s.errorText ?? '') + from.toString('utf8');
      const re = /data: (\{"type":"Error".*)\n/g;
      let m;
      while ((m = re.exec(s.errorText)) !== null) {
        try { s.error_messages.push(JSON.parse(m[1]).data.message); } catch { s.error_messages.push(m[1]); }
      }
      if (s.error_messages.length) s.errorText = null;
    }
    s.tail = chunk.length >= CARRY ? chunk.subarray(chunk.length - CARRY)
                                   : Buffer.concat([s.tail, chunk]).subarray(-CARRY);
  }

  // One attempt to open stream s: resolves 'open', 'refused' (retry) or 'failed'.
  function open(s) {
    return new Promise((resolve) => {
      const req = http.get({host: u.hostname, port: u.port || 80, path: u.pathname + u.search,
                            agent: false, headers}, (res) => {
        s.status = res.statusCode;
        if (res.statusCode !== 200) {
          s.error = `HTTP ${res.statusCode}`;
          res.resume();
          return resolve('failed');
        }
        res.on('data', (chunk) => onData(s, chunk));
        const ended = () => {
          if (s.ended) return;
          s.ended = true;
          s.ended_ms = Math.round(now() - t0);
          if (!stopping) {
            log(`stream ${s.i} ended by the server after ${s.events} events` +
                (s.error_messages.length ? `: ${s.error_messages.join('; ')}` : ''));
          }
        };
        res.on('end', ended);
        res.on('close', ended);
        res.on('error', () => {});
        resolve('open');
      });
      s.req = req;
      req.on('error', (e) => {
        if (s.status === null) {
          s.error = e.code || e.message;
          resolve(e.code === 'ECONNREFUSED' || e.code === 'ECONNRESET' ? 'refused' : 'failed');
        }
      });
    });
  }

  async function openWithRetry(s) {
    const deadline = t0 + connectTimeoutMs;
    for (;;) {
      if (stopping) return false;
      const r = await open(s);
      if (r === 'open') { s.error = null; return true; }
      if (r === 'failed' || now() > deadline) {
        log(`stream ${s.i} did not open: ${s.error}`);
        return false;
      }
      await sleep(10);
    }
  }

  async function waitConnected(s) {
    const deadline = t0 + connectTimeoutMs;
    while (!s.connected && !s.ended && !stopping && now() < deadline) await sleep(2);
    return s.connected;
  }

  let finishing = false;
  async function finish(why) {
    if (finishing) return;
    finishing = true;
    stopping = true;
    const tStop = now();
    while (now() - tStop < drainMs && now() - lastDataAt < quietMs) await sleep(20);
    const drained = Math.round(now() - tStop);
    for (const s of streams) s.req?.destroy();
    const cpu = process.cpuUsage();
    const ev = streams.map((s) => s.events);
    const min = (k) => Math.min(...streams.map((s) => s[k]));
    const max = (k) => Math.max(...streams.map((s) => s[k]));
    const out = {
      url, subscribers: total, stopped_by: why,
      connected: streams.filter((s) => s.connected).length,
      all_connected_ms: allConnectedMs,
      open_failures: streams.filter((s) => !s.connected).map((s) => ({stream: s.i, status: s.status, error: s.error})),
      ended_by_server: streams.filter((s) => s.ended && s.ended_ms < tStop - t0).length,
      dropped: streams.filter((s) => s.errors > 0).length,
      drop_messages: [...new Set(streams.flatMap((s) => s.error_messages))],
      events_total: ev.reduce((a, b) => a + b, 0),
      events_min: min('events'), events_max: max('events'),
      created_min: min('created'), created_max: max('created'),
      completed_min: min('completed'), completed_max: max('completed'),
      bytes_total: streams.reduce((a, s) => a + s.bytes, 0),
      drain_ms: drained,
      alive_ms: Math.round(tStop - t0),
      cpu_user_ms: Math.round(cpu.user / 1000), cpu_system_ms: Math.round(cpu.system / 1000),
      events_per_stream: ev,
    };
    process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
  }
  process.on('SIGTERM', () => finish('SIGTERM'));
  process.on('SIGINT', () => finish('SIGINT'));
  setTimeout(() => { log(`SSE_MAX_SECONDS (${maxSeconds}) passed`); finish('SSE_MAX_SECONDS'); },
             maxSeconds * 1000).unref();

  log(`opening ${total} streams to ${url}`);
  // The first stream waits for the server; the others open once it answers.
  if (await openWithRetry(streams[0]) && await waitConnected(streams[0])) {
    await Promise.all(streams.slice(1).map(async (s) => {
      if (await openWithRetry(s)) await waitConnected(s);
    }));
  }
  if (connectedCount < total && !stopping) log(`only ${connectedCount} of ${total} streams connected`);
  // Keep the process alive until a signal (the sockets keep the loop alive;
  // this timer covers the case where every stream has closed).
  setInterval(() => {}, 1 << 30);
}

// ---------------------------------------------------------------- table

function median(xs) {
  const s = xs.filter((x) => typeof x === 'number').sort((a, b) => a - b);
  if (!s.length) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function readJsonLines(file) {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean)
    .map((l) => { try { return JSON.parse(l); } catch { return null; } }).filter(Boolean);
}

function readJson(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8').trim().split('\n').pop()); } catch { return null; }
}

function pad(rows, left = [0, 1]) { // columns aligned left; the others right
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((x, c) => (left.includes(c) ? String(x).padEnd(widths[c]) : String(x).padStart(widths[c])))
    .join('  ').trimEnd()).join('\n');
}

function table([dir]) {
  if (!dir) die('usage: table DIR');
  const runs = readJsonLines(path.join(dir, 'runs.jsonl'));
  const results = new Map(readJsonLines(path.join(dir, 'results.jsonl'))
    .filter((r) => r.kind !== 'machine').map((r) => [r.run_id, r]));
  const problems = [];
  const fmt = (x) => (x === null || x === undefined ? '-' : String(Math.round(x)));
  const range = (a, b) => (a === b ? `${a}` : `${a}-${b}`);

  const detail = [['run', 'mode', 'subs', 'W1 jobs/s', '1st-pass/s', 'W1', 'server CPU s', 'subs CPU s',
                   'events/sub', 'expected', 'created/sub', 'dropped', 'connect ms']];
  for (const run of runs) {
    const r = results.get(run.run_id) || {};
    const w1 = r.W1 || {};
    run.rate = typeof w1.process_rate === 'number' ? w1.process_rate : null;
    const cpu = readJson(path.join(dir, `${run.run_id}.server-cpu.json`));
    const sse = run.subscribers > 0 ? readJson(path.join(dir, `${run.run_id}.sse.json`)) : null;
    const label = `${run.mode} s=${run.subscribers} r${run.round}`;
    // Every job's events: JobCreated, the claim, and per completion a
    // JobStatusChange and JobCompleted; per failed attempt a JobStatusChange,
    // JobFailed and one more claim. 4N + 3F per subscriber.
    const expected = typeof w1.jobs === 'number' && typeof w1.planned_failures === 'number'
      ? 4 * w1.jobs + 3 * w1.planned_failures : null;
    if (!w1.ok) problems.push(`${label}: W1 failed (${(r.errors || []).join('; ') || 'no result'})`);
    if (run.subscribers > 0) {
      if (!sse) problems.push(`${label}: no subscriber result`);
      else {
        if (sse.connected < run.subscribers) problems.push(`${label}: ${sse.connected}/${run.subscribers} subscribers connected`);
        if (sse.dropped || sse.ended_by_server) {
          problems.push(`${label}: ${sse.dropped} subscribers dropped, ${sse.ended_by_server} streams ended by the server` +
                        (sse.drop_messages.length ? ` (${sse.drop_messages.join('; ')})` : ''));
        }
        if (w1.jobs !== undefined && sse.created_min < w1.jobs) {
          problems.push(`${label}: a subscriber saw ${sse.created_min} JobCreated of ${w1.jobs} (connected after the first enqueue, or dropped)`);
        }
        if (expected !== null && (sse.events_min !== expected || sse.events_max !== expected)) {
          problems.push(`${label}: events per subscriber ${range(sse.events_min, sse.events_max)}, expected ${expected}`);
        }
      }
    }
    detail.push([label, run.mode, run.subscribers, fmt(run.rate), fmt(w1.first_pass_rate), w1.ok ? 'ok' : 'FAIL',
                 cpu ? cpu.server_cpu_s.toFixed(2) : '-',
                 sse ? ((sse.cpu_user_ms + sse.cpu_system_ms) / 1000).toFixed(2) : '-',
                 sse ? range(sse.events_min, sse.events_max) : '-',
                 sse && expected !== null ? expected : '-',
                 sse ? range(sse.created_min, sse.created_max) : '-',
                 sse ? sse.dropped : '-', sse ? fmt(sse.all_connected_ms) : '-']);
  }
  console.log('Per run (W1 jobs/s = the harness\'s process_rate; CPU = whole run, enqueue included):');
  console.log(pad(detail));

  const summary = [['mode', 'subs', 'W1 jobs/s by round', 'median', 'vs none', 'events/sub (all rounds)']];
  const modes = [...new Set(runs.map((r) => r.mode))];
  for (const mode of modes) {
    const base = median(runs.filter((r) => r.mode === mode && r.subscribers === 0).map((r) => r.rate));
    for (const subs of [...new Set(runs.filter((r) => r.mode === mode).map((r) => r.subscribers))]) {
      const rs = runs.filter((r) => r.mode === mode && r.subscribers === subs);
      const med = median(rs.map((r) => r.rate));
      const ses = subs > 0 ? rs.map((r) => readJson(path.join(dir, `${r.run_id}.sse.json`))).filter(Boolean) : [];
      const dropped = ses.filter((s) => s.dropped || s.ended_by_server).length;
      const evs = (ses.length ? range(Math.min(...ses.map((s) => s.events_min)), Math.max(...ses.map((s) => s.events_max))) : '-') +
                  (dropped ? ` (dropped in ${dropped} of ${rs.length} rounds: ratio not valid)` : '');
      summary.push([mode, subs, rs.map((r) => fmt(r.rate)).join(' '), fmt(med),
                    subs === 0 ? '1' : (med && base ? (med / base).toFixed(2) : '-'), evs]);
    }
  }
  console.log('\nSummary (vs none = median / median with 0 subscribers, same mode):');
  console.log(pad(summary, [0, 1, 5]));
  if (problems.length) {
    console.log('\nPROBLEMS:');
    for (const p of problems) console.log(`  ${p}`);
    process.exitCode = 1;
  }
}

// ---------------------------------------------------------------- main

const [command, ...rest] = process.argv.slice(2);
if (command === 'subscribe') await subscribe(rest);
else if (command === 'table') table(rest);
else die('usage: sse-subscribers.mjs subscribe URL S | table DIR');
