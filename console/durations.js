// Durations in the CLI's words, so the console and `redrive` say the same
// thing. Shown: the largest unit and the next one when it is not zero, as
// FormatDuration (src/core/time_format.cc) writes them: "250ms", "1s500ms",
// "7d", "1h30m", "1m", "2m5s". Typed: the grammar of core/duration.h —
// integers each with a unit (d, h, m, s, ms), largest first, each at most
// once; a bare number is seconds: "500ms", "90s", "5m", "1h30m", "7d".

const UNITS = [['d', 86400000], ['h', 3600000], ['m', 60000], ['s', 1000], ['ms', 1]];

// A duration shown to people (a job's timeout, a queue's backoff, "in 8s").
export function formatDuration(ms) {
  ms = Math.max(0, Math.floor(ms));
  if (ms < 1000) return `${ms}ms`;
  if (ms < 10000) return `${Math.floor(ms / 1000)}s${ms % 1000 ? `${ms % 1000}ms` : ''}`;
  const s = Math.floor(ms / 1000);
  const parts = [[Math.floor(s / 86400), 'd'], [Math.floor(s / 3600) % 24, 'h'],
                 [Math.floor(s / 60) % 60, 'm'], [s % 60, 's']];
  const first = parts.findIndex(([n]) => n > 0);
  const next = parts[first + 1];
  return `${parts[first][0]}${parts[first][1]}${next && next[0] ? `${next[0]}${next[1]}` : ''}`;
}

// A duration written in full (every non-zero unit), for a form's value:
// saving the form unchanged must not change the setting.
export function exactDuration(ms) {
  if (ms === 0) return '0s';
  let rest = ms;
  let out = '';
  for (const [unit, size] of UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * size;
  }
  return out;
}

// Milliseconds, or null when `text` is not a duration.
export function parseDuration(text) {
  text = String(text).trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  let total = 0;
  let last = -1;
  const re = /(\d+)(ms|d|h|m|s)/y;
  let at = 0;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return null;
    const unit = UNITS.findIndex(([u]) => u === m[2]);
    if (unit <= last) return null;  // repeated or out of order: "30m1h", "1m1m"
    total += Number(m[1]) * UNITS[unit][1];
    last = unit;
    at = re.lastIndex;
  }
  return text === '' || !Number.isSafeInteger(total) ? null : total;
}

// "1s doubling to 1m, plus up to 500ms jitter"; "none (retried at once)".
export function backoffText(b) {
  if (!b) return '—';
  let text = b.base_ms === 0 && b.max_ms === 0 ? 'none (retried at once)'
    : `${formatDuration(b.base_ms)} doubling to ${formatDuration(b.max_ms)}`;
  if (b.jitter_ms > 0) text += `, plus up to ${formatDuration(b.jitter_ms)} jitter`;
  return text;
}

// A queue's state, as `redrive queues` says it: disabled, paused or active.
export function queueState(q) {
  if (!q.enabled) return 'disabled';
  return q.paused ? 'paused' : 'active';
}
