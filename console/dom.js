// Building DOM safely: every value becomes a text node or an attribute set
// through the DOM API, never HTML. Job errors, tags and payloads are user
// data; nothing here parses markup, so none of it can inject any.

import {formatDuration} from './durations.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

// h('a', {href: '#/', class: 'x', onclick: fn}, 'text', child, [more])
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

export function svg(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

// Replaces el's children; null/false children are skipped (Element.append
// would render them as the text "null").
export function fill(el, ...children) {
  append(clear(el), children);
  return el;
}

// "3m12s ago" / "in 20s", in whole seconds as the CLI says it; the exact UTC
// time goes in the title.
export function relativeTime(iso, now = Date.now()) {
  if (!iso) return '—';
  const diff = Math.trunc((now - Date.parse(iso)) / 1000);
  if (Math.abs(diff) < 1) return 'just now';
  const text = formatDuration(Math.abs(diff) * 1000);
  return diff >= 0 ? `${text} ago` : `in ${text}`;
}

export function time(iso) {
  if (!iso) return h('span', {class: 'muted'}, '—');
  return h('time', {datetime: iso, title: iso}, relativeTime(iso));
}

export function statusBadge(status) {
  return h('span', {class: `badge status-${status}`}, status);
}

export function shortId(id) {
  return id.length > 13 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id;
}

export function tagList(tags) {
  const entries = Object.entries(tags || {});
  if (entries.length === 0) return h('span', {class: 'muted'}, '—');
  return entries.map(([k, v]) => h('span', {class: 'tag'}, `${k}=${v}`));
}

// "← Newer · Page n · Older →" under a paged table; `hrefOf(page)` is the
// hash of another page (0-based).
export function pager(page, hasMore, hrefOf) {
  const link = (to, label, enabled) => enabled
    ? h('a', {href: hrefOf(to), class: 'button'}, label)
    : h('span', {class: 'button disabled'}, label);
  return h('nav', {class: 'pager'}, link(page - 1, '← Newer', page > 0),
           h('span', {class: 'muted'}, `Page ${page + 1}`), link(page + 1, 'Older →', hasMore));
}

export function truncate(text, max) {
  if (!text) return '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
