// A workflow's jobs as a graph: laid out in layers (dagLayout, no DOM) and
// drawn as inline SVG (dagDrawing), one node per job coloured by its status,
// or, past MAX_DRAWN_NODES, as counts by status per layer (layerSummary): a
// workflow may hold 10,000 jobs, which no one can read as boxes and a
// browser draws slowly.
import * as api from './api.js';
import {h, svg, statusBadge, truncate} from './dom.js';
import {STATUSES} from './jobs.js';

export const MAX_DRAWN_NODES = 300;

// Left to right: a layer is a column, so a wide fan-out grows downwards
// (the page scrolls) and keys read horizontally.
const NODE_W = 168, NODE_H = 38, LAYER_GAP = 72, ROW_GAP = 14, PAD = 12;
const KEY_CHARS = 22;  // what fits in NODE_W at the node's font size
const SWEEPS = 4;      // ordering passes (down, up, ...): enough for the crossings that matter

// `jobs`: [{id, depends_on: [job ids]}] in definition order. Answers
// {layers: [[job id, ...], ...], layerOf: Map(id → layer), edges: [[from, to]]}
// where a job's layer is the longest path to it from a root (a job that
// waits for nothing of the workflow), so every edge points to a later layer.
// Within a layer, jobs are ordered by the mean position of their neighbours
// in the layers before (then after), which removes most crossings of a
// fan-out/fan-in; ties keep definition order. Dependencies on jobs outside
// the workflow (POST /jobs/{id}/dependencies allows them) draw no edge.
export function dagLayout(jobs) {
  const index = new Map(jobs.map((j, i) => [j.id, i]));
  const parents = jobs.map((j) => [...new Set(j.depends_on || [])].filter((d) => index.has(d))
                                                                  .map((d) => index.get(d)));
  const children = jobs.map(() => []);
  parents.forEach((ps, child) => { for (const p of ps) children[p].push(child); });

  // Longest path by Kahn's order. The server refuses cycles; should one
  // appear anyway, its jobs go in a last layer rather than loop forever.
  const layer = new Array(jobs.length).fill(0);
  const waiting = parents.map((ps) => ps.length);
  const ready = [];
  waiting.forEach((n, i) => { if (n === 0) ready.push(i); });
  let placed = 0;
  for (let k = 0; k < ready.length; k++) {
    const v = ready[k];
    placed += 1;
    for (const c of children[v]) {
      layer[c] = Math.max(layer[c], layer[v] + 1);
      if (--waiting[c] === 0) ready.push(c);
    }
  }
  if (placed < jobs.length) {
    const last = Math.max(0, ...ready.map((v) => layer[v])) + 1;
    waiting.forEach((n, i) => { if (n > 0) layer[i] = last; });
  }

  const depth = jobs.length === 0 ? 0 : Math.max(...layer) + 1;
  const layers = Array.from({length: depth}, () => []);
  layer.forEach((l, i) => layers[l].push(i));  // definition order within a layer
  const position = new Array(jobs.length).fill(0);
  const number = (l) => layers[l].forEach((v, p) => { position[v] = p; });
  layers.forEach((_, l) => number(l));
  // Barycenter: a job's place is the mean place of its neighbours on the
  // side already ordered; one without any keeps its own.
  const reorder = (l, neighbours) => {
    if (layers[l].length < 2) return;  // nothing to order (a long chain: most layers)
    const key = new Map(layers[l].map((v) => {
      const ns = neighbours[v];
      return [v, ns.length === 0 ? position[v]
                                 : ns.reduce((s, n) => s + position[n], 0) / ns.length];
    }));
    layers[l].sort((a, b) => key.get(a) - key.get(b) || position[a] - position[b]);
    number(l);
  };
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    if (sweep % 2 === 0) for (let l = 1; l < depth; l++) reorder(l, parents);
    else for (let l = depth - 2; l >= 0; l--) reorder(l, children);
  }

  const edges = [];
  parents.forEach((ps, child) => { for (const p of ps) edges.push([jobs[p].id, jobs[child].id]); });
  return {layers: layers.map((vs) => vs.map((v) => jobs[v].id)),
          layerOf: new Map(jobs.map((j, i) => [j.id, layer[i]])), edges};
}

// The graph as SVG. `jobs`: [{id, key, queue_name}]; `statusOf(id)`: the
// job's status now; `hrefOf(id)`: its page. Each node is a link (an SVG <a>)
// whose class is the console's status-<status>: the colour is the badges'.
export function dagDrawing(layout, jobs, statusOf, hrefOf) {
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const tallest = Math.max(1, ...layout.layers.map((l) => l.length));
  const height = PAD * 2 + tallest * NODE_H + (tallest - 1) * ROW_GAP;
  const width = PAD * 2 + layout.layers.length * NODE_W + (layout.layers.length - 1) * LAYER_GAP;
  // Each column is centred on the tallest one: a fan-in's last job sits
  // level with the middle of its fan-out.
  const at = new Map();
  layout.layers.forEach((ids, l) => {
    const top = (height - (ids.length * NODE_H + (ids.length - 1) * ROW_GAP)) / 2;
    ids.forEach((id, row) => at.set(id, {x: PAD + l * (NODE_W + LAYER_GAP),
                                         y: top + row * (NODE_H + ROW_GAP)}));
  });
  const edges = layout.edges.map(([from, to]) => {
    const a = at.get(from), b = at.get(to);
    const x1 = a.x + NODE_W, y1 = a.y + NODE_H / 2, x2 = b.x, y2 = b.y + NODE_H / 2;
    const bend = Math.max(24, (x2 - x1) / 2);
    // A satisfied dependency (its job completed) is drawn solid.
    const done = statusOf(from) === 'completed';
    return svg('path', {class: `dag-edge${done ? ' done' : ''}`, 'data-from': from, 'data-to': to,
                        'marker-end': 'url(#dag-arrow)',
                        d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`});
  });
  const nodes = layout.layers.flat().map((id) => {
    const job = byId.get(id);
    const status = statusOf(id) || 'unknown';
    const {x, y} = at.get(id);
    return svg('a', {href: hrefOf(id), class: `dag-node status-${status}`, 'data-job-id': id,
                     'data-key': job.key, 'data-status': status},
      svg('title', {}, `${job.key}: ${status} (queue ${job.queue_name})`),
      svg('rect', {x, y, width: NODE_W, height: NODE_H, rx: 6}),
      svg('text', {x: x + 10, y: y + 16, class: 'dag-key'}, truncate(job.key, KEY_CHARS)),
      svg('text', {x: x + 10, y: y + 30, class: 'dag-status'}, status));
  });
  return svg('svg', {class: 'dag', width, height, viewBox: `0 0 ${width} ${height}`,
                     role: 'img', 'data-test': 'dag',
                     'aria-label': `${jobs.length} jobs in ${layout.layers.length} layers`},
    svg('defs', {}, svg('marker', {id: 'dag-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5,
                                   markerWidth: 7, markerHeight: 7, orient: 'auto'},
      svg('path', {d: 'M0,0 L10,5 L0,10 z', class: 'dag-arrowhead'}))),
    svg('g', {class: 'dag-edges'}, edges), svg('g', {class: 'dag-nodes'}, nodes));
}

// A workflow too large to draw: one row per layer with its jobs by status,
// as a bar (the status colours) and as counts. A deep workflow (a chain of
// thousands) is shown in at most MAX_SUMMARY_ROWS rows of consecutive layers.
const MAX_SUMMARY_ROWS = 100;

export function layerSummary(layout, statusOf) {
  const BAR_W = 320;
  const depth = layout.layers.length;
  const per = Math.ceil(depth / MAX_SUMMARY_ROWS);
  const bands = [];
  for (let first = 0; first < depth; first += per) {
    const last = Math.min(depth, first + per) - 1;
    bands.push({first, last, ids: layout.layers.slice(first, last + 1).flat()});
  }
  const rows = bands.map(({first, last, ids}) => {
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0]));
    for (const id of ids) {
      const s = statusOf(id);
      if (s in counts) counts[s] += 1;
    }
    const name = first === last ? String(first + 1) : `${first + 1}–${last + 1}`;
    let x = 0;
    const segments = STATUSES.filter((s) => counts[s] > 0).map((s) => {
      // At least 2px: one dead job among thousands must still show.
      const w = Math.max(2, (counts[s] / ids.length) * BAR_W);
      const rect = svg('rect', {x: x.toFixed(1), y: 0, width: w.toFixed(1), height: 14,
                                class: `dag-bar status-${s}`},
                     svg('title', {}, `${s}: ${counts[s]}`));
      x += w;
      return rect;
    });
    return h('tr', {'data-layer': String(first)},
      h('td', {class: 'num'}, name),
      h('td', {class: 'num'}, String(ids.length)),
      h('td', {}, svg('svg', {class: 'dag-bars', width: BAR_W, height: 14,
                              viewBox: `0 0 ${BAR_W} 14`, role: 'img',
                              'aria-label': `layer ${name} by status`}, segments)),
      h('td', {}, STATUSES.filter((s) => counts[s] > 0).map((s) =>
        h('span', {class: `layer-count status-${s}`, 'data-status': s},
          h('strong', {}, String(counts[s])), ` ${s}`))));
  });
  return h('table', {class: 'grid', 'data-test': 'layer-summary'},
    h('thead', {}, h('tr', {}, h('th', {class: 'num'}, per > 1 ? 'Layers' : 'Layer'),
                    h('th', {class: 'num'}, 'Jobs'), h('th', {}, 'By status'),
                    h('th', {}, 'Counts'))),
    h('tbody', {}, rows));
}

// The statuses present, each with its colour: the key to the drawing.
export function statusLegend(counts) {
  const present = STATUSES.filter((s) => (counts[s] || 0) > 0);
  return h('p', {class: 'dag-legend'}, present.map((s) => [statusBadge(s), ` ${counts[s]} `]));
}

export const jobHref = (workflowId) => (jobId) =>
  `#/jobs/${api.enc(jobId)}${api.query({workflow: workflowId})}`;
