// The throughput chart: inline SVG lines, one per series, no library.
import {h, svg} from './dom.js';
import {formatDuration} from './durations.js';

export const SERIES = [
  {key: 'enqueued', label: 'enqueued'},
  {key: 'completed', label: 'completed'},
  {key: 'failed', label: 'failed attempts'},
  {key: 'deadlettered', label: 'dead-lettered'},
];

const W = 640, H = 160, PAD_L = 36, PAD_B = 18, PAD_T = 8, PAD_R = 8;

// `data`: {interval_seconds, points: [{at, enqueued, completed, failed, deadlettered}]}
export function throughputChart(data, scope = 'all queues') {
  const points = data.points || [];
  const legend = h('ul', {class: 'legend'}, SERIES.map((s) =>
    h('li', {class: `series-${s.key}`}, h('span', {class: 'swatch'}), s.label,
      ` (${points.reduce((sum, p) => sum + p[s.key], 0)})`)));
  if (points.length === 0) {
    return h('div', {class: 'chart'},
      h('p', {class: 'muted empty'},
        `Collecting data: one point every ${formatDuration(data.interval_seconds * 1000)} while a server is up.`),
      legend);
  }
  const max = Math.max(1, ...points.flatMap((p) => SERIES.map((s) => p[s.key])));
  const x = (i) => (points.length === 1 ? (PAD_L + W - PAD_R) / 2
    : PAD_L + (i * (W - PAD_L - PAD_R)) / (points.length - 1));
  const y = (v) => PAD_T + (H - PAD_T - PAD_B) * (1 - v / max);
  const grid = [0, 0.5, 1].map((f) => {
    const value = Math.round(max * f);
    return [svg('line', {x1: PAD_L, x2: W - PAD_R, y1: y(value), y2: y(value), class: 'grid'}),
            svg('text', {x: PAD_L - 4, y: y(value) + 4, class: 'axis', 'text-anchor': 'end'},
                String(value))];
  });
  const first = new Date(points[0].at), last = new Date(points[points.length - 1].at);
  const clock = (d) => d.toISOString().slice(11, 16);
  const lines = SERIES.map((s) => svg('polyline', {
    class: `line series-${s.key}`,
    points: points.map((p, i) => `${x(i).toFixed(1)},${y(p[s.key]).toFixed(1)}`).join(' '),
  }, svg('title', {}, s.label)));
  // Dots while there are few points, so a lone first sample is visible.
  const dots = points.length > 30 ? [] : SERIES.flatMap((s) => points.map((p, i) =>
    svg('circle', {cx: x(i).toFixed(1), cy: y(p[s.key]).toFixed(1), r: 2.5,
                   class: `dot series-${s.key}`}, svg('title', {}, `${s.label}: ${p[s.key]}`))));
  return h('div', {class: 'chart'},
    svg('svg', {viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart-svg',
                'aria-label': `Jobs per ${formatDuration(data.interval_seconds * 1000)}`},
      grid, lines, dots,
      svg('text', {x: PAD_L, y: H - 4, class: 'axis'}, `${clock(first)} UTC`),
      svg('text', {x: W - PAD_R, y: H - 4, class: 'axis', 'text-anchor': 'end'},
          `${clock(last)} UTC`)),
    h('p', {class: 'muted small'}, `Jobs per ${formatDuration(data.interval_seconds * 1000)} interval, ${scope}.`),
    legend);
}
