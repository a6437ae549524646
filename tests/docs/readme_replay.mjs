// Replays the README's marked shell blocks against the real binary, so the
// README cannot drift from what Redrive does.
//
//   node readme_replay.mjs README.md REDRIVE_BINARY
//
// A block is replayed when an HTML comment starting "<!-- replay" (invisible
// on GitHub) comes right before its ```sh fence. The blocks run in order
// against one fresh `redrive serve` (SQLite, a free port, which replaces
// 127.0.0.1:7070 everywhere), with the binary's folder first on PATH and
// REDRIVE_URL naming the server. Inside a block:
//
//   - each command (lines joined while a quote is open or a line ends in \)
//     runs in bash and must exit 0;
//   - the "# → " lines right after a command are its output, one line each,
//     compared whole and in order: "…" stands for anything, hex digits before
//     "…" ("0193…") for an id, "…:57.126Z" for a time; a command without them
//     only has to succeed;
//   - VAR=<the FIELD> sets VAR to the first FIELD of the last command's JSON
//     output (depth first); other VAR=value lines are evaluated by bash;
//   - other comments are prose.
//
// The comment itself may ask for more:
//   "in the background ... until queue Q is drained": each command runs in
//     the background (a send_email.py that exits 0 is provided) until Q has
//     nothing pending, scheduled or processing; then SIGTERM, and it must exit 0;
//   "after queue Q has dead jobs; <job-id> is one of them": Q gets three dead
//     jobs first (two failed with "gateway timeout …", one "card declined").
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const [readmePath, binary] = process.argv.slice(2);
if (!readmePath || !binary) {
  console.error('usage: node readme_replay.mjs README.md REDRIVE_BINARY');
  process.exit(2);
}
const kExpectedBlocks = 3;  // the quick start, the worker, the 3 a.m. session

class ReplayError extends Error {}

// Ends the replay (the server is stopped on the way out).
function fail(message) {
  throw new ReplayError(message);
}

// [{directive, firstLine, lines}] of every marked ```sh block, in order.
function markedBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; ++i) {
    if (!lines[i].startsWith('<!-- replay')) continue;
    let directive = lines[i];
    while (!directive.includes('-->') && i + 1 < lines.length) directive += ' ' + lines[++i];
    if (lines[i + 1] !== '```sh') fail(`line ${i + 1}: a replay comment must come right before a \`\`\`sh block`);
    const firstLine = i + 3;
    const body = [];
    for (i += 2; i < lines.length && lines[i] !== '```'; ++i) body.push(lines[i]);
    blocks.push({ directive, firstLine, lines: body });
  }
  return blocks;
}

// True when `text` leaves no quote open and does not end in a backslash.
function complete(text) {
  let quote = null;
  for (let i = 0; i < text.length; ++i) {
    const c = text[i];
    if (quote === "'") { if (c === "'") quote = null; continue; }
    if (c === '\\') { ++i; continue; }
    if (quote === '"') { if (c === '"') quote = null; continue; }
    if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const eol = text.indexOf('\n', i);
      if (eol < 0) break;
      i = eol;
    }
  }
  return quote === null && !text.endsWith('\\');
}

// [{line, text, expected: [pattern lines]}]
function commands(block) {
  const out = [];
  let pending = null;
  block.lines.forEach((line, k) => {
    const lineNo = block.firstLine + k;
    if (pending) {
      pending.text += '\n' + line;
      if (complete(pending.text)) { out.push(pending); pending = null; }
      return;
    }
    const trimmed = line.trim();
    if (trimmed === '') return;
    if (trimmed.startsWith('# → ')) {
      if (out.length === 0) fail(`README.md:${lineNo}: an output line before any command`);
      out[out.length - 1].expected.push(trimmed.slice('# → '.length));
      return;
    }
    if (trimmed.startsWith('#')) return;
    const command = { line: lineNo, text: line, expected: [] };
    if (complete(line)) out.push(command); else pending = command;
  });
  if (pending) fail(`README.md:${pending.line}: the command never ends`);
  return out;
}

function escapeRegExp(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

// The regular expression an output line of the README stands for.
function patternOf(expected) {
  let re = '';
  let rest = expected;
  while (rest.length > 0) {
    let m;
    if ((m = /^[0-9a-f]+…/.exec(rest))) { re += '[0-9a-f-]+'; }
    else if ((m = /^…:\d\d\.\d{3}Z/.exec(rest))) { re += '[0-9T:.-]*Z'; }
    else if ((m = /^…/.exec(rest))) { re += '.*'; }
    else { m = /^[^…]/.exec(rest); re += escapeRegExp(m[0]); }
    rest = rest.slice(m[0].length);
  }
  return new RegExp(`^${re}$`, 's');
}

function findField(value, field) {
  if (Array.isArray(value)) {
    for (const v of value) { const f = findField(v, field); if (f !== undefined) return f; }
  } else if (value && typeof value === 'object') {
    if (field in value) return value[field];
    for (const v of Object.values(value)) { const f = findField(v, field); if (f !== undefined) return f; }
  }
  return undefined;
}

async function startServer(dir) {
  const server = spawn(binary, ['serve', '--listen', '127.0.0.1:0', '--store', `sqlite:${dir}/redrive.db`],
                       { stdio: ['ignore', 'pipe', fs.openSync(path.join(dir, 'server.log'), 'w')] });
  const address = await new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error('the server did not start in 30 s')), 30000);
    server.stdout.on('data', (chunk) => {
      seen += chunk;
      const m = /listening on http:\/\/(\S+)/.exec(seen);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    server.on('exit', (code) => reject(new Error(`the server exited (${code})`)));
  });
  return { server, address };
}

async function api(base, method, route, body) {
  const response = await fetch(`${base}/api/v1${route}`, {
    method, headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) fail(`set-up: ${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

async function seedDeadJobs(base, queue) {
  const errors = ['gateway timeout (upstream 504)', 'gateway timeout (upstream 504)', 'card declined'];
  for (const i of errors.keys()) {
    await api(base, 'POST', '/jobs', { queue_name: queue, payload: { order: i }, max_retries: 0 });
  }
  const claimed = await api(base, 'POST', '/jobs/claim', { queue_name: queue, worker_id: 'seed', limit: 3 });
  if (claimed.jobs.length !== 3) fail(`set-up: claimed ${claimed.jobs.length} jobs of ${queue}, not 3`);
  for (const [i, job] of claimed.jobs.entries()) {
    await api(base, 'POST', `/jobs/${job.id}/fail`, { worker_id: 'seed', lease_id: job.lease_id, error: errors[i] });
  }
  return claimed.jobs[0].id;
}

async function drained(base, queue) {
  const stats = await api(base, 'GET', `/jobs/stats?queue_name=${encodeURIComponent(queue)}`);
  return stats.pending === 0 && stats.scheduled === 0 && stats.processing === 0;
}

async function runInBackground(command, env, cwd, base, queue) {
  const child = spawn('bash', ['-c', command.text], { env, cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  let exited = null;
  const exit = new Promise((resolve) => child.on('exit', (code, signal) => { exited = code ?? signal; resolve(); }));
  const deadline = Date.now() + 30000;
  while (!(await drained(base, queue))) {
    if (exited !== null) fail(`README.md:${command.line}: exited (${exited}) before queue ${queue} was drained`);
    if (Date.now() > deadline) { child.kill('SIGKILL'); fail(`README.md:${command.line}: queue ${queue} not drained in 30 s`); }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  await exit;
  if (exited !== 0) fail(`README.md:${command.line}: exited with ${exited} after SIGTERM, not 0`);
}

async function main() {
  const blocks = markedBlocks(fs.readFileSync(readmePath, 'utf8'));
  if (blocks.length !== kExpectedBlocks) {
    fail(`found ${blocks.length} replay blocks in ${readmePath}, expected ${kExpectedBlocks}`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'readme-replay-'));
  const { server, address } = await startServer(dir);
  const base = `http://${address}`;
  const vars = {};
  const env = () => ({ ...process.env, ...vars, REDRIVE_URL: base,
                       PATH: `${path.dirname(path.resolve(binary))}:${process.env.PATH}` });
  let checked = 0;
  try {
    for (const block of blocks) {
      const placeholders = {};
      let m;
      if ((m = /after queue (\S+) has dead jobs; (<[a-z-]+>) is one of them/.exec(block.directive))) {
        placeholders[m[2]] = await seedDeadJobs(base, m[1]);
      }
      const background = /in the background.*until queue (\S+) is drained/.exec(block.directive);
      if (background) {
        const script = path.join(dir, 'send_email.py');
        fs.writeFileSync(script, '#!/bin/sh\ncat >/dev/null\n', { mode: 0o755 });
        await api(base, 'POST', '/jobs', { queue_name: background[1], payload: { to: 'ada@example.com' } });
      }
      let lastOutput = '';
      for (const command of commands(block)) {
        let text = command.text.replaceAll('127.0.0.1:7070', address);
        for (const [k, v] of Object.entries(placeholders)) text = text.replaceAll(k, v);
        const where = `README.md:${command.line}`;
        const field = /^([A-Z_]+)=<the ([a-z_]+)>$/.exec(text.trim());
        if (field) {
          let parsed;
          try { parsed = JSON.parse(lastOutput); } catch { fail(`${where}: the output before it is not JSON: ${lastOutput}`); }
          const value = findField(parsed, field[2]);
          if (value === undefined) fail(`${where}: no "${field[2]}" in ${lastOutput}`);
          vars[field[1]] = String(value);
          continue;
        }
        const assignment = /^([A-Z_]+)=/.exec(text);
        if (assignment) {
          const r = spawnSync('bash', ['-c', `${text}\nprintf %s "$${assignment[1]}"`], { env: env(), cwd: dir, encoding: 'utf8' });
          if (r.status !== 0) fail(`${where}: ${text}: exit ${r.status}: ${r.stderr}`);
          vars[assignment[1]] = r.stdout;
          continue;
        }
        if (background) { await runInBackground({ ...command, text }, env(), dir, base, background[1]); ++checked; continue; }
        const r = spawnSync('bash', ['-c', text], { env: env(), cwd: dir, encoding: 'utf8', timeout: 60000 });
        if (r.status !== 0) fail(`${where}: exit ${r.status ?? r.signal}\n$ ${text}\n${r.stdout}${r.stderr}`);
        lastOutput = r.stdout;
        ++checked;
        if (command.expected.length === 0) continue;
        const actual = r.stdout.replace(/\n$/, '').split('\n');
        const ok = actual.length === command.expected.length &&
                   command.expected.every((e, i) => patternOf(e).test(actual[i]));
        if (!ok) {
          fail(`${where}: the output differs from the README's\n$ ${text}\nREADME:\n  ${command.expected.join('\n  ')}\nactual:\n  ${actual.join('\n  ')}`);
        }
      }
    }
  } finally {
    server.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
  console.log(`readme_replay: ${blocks.length} blocks, ${checked} commands as the README says`);
}

main().catch((e) => {
  console.error(`readme_replay: ${e instanceof ReplayError ? e.message : e.stack}`);
  process.exit(1);
});
