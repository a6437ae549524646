// Shared by the Spooled SDK replays (spooled_sdk*.test.mjs): the real
// `redrive serve` started once per test file, and a client that sends exactly
// what the Node SDK's HttpClient sends (Spooled-Cloud/spooled-sdk-nodejs,
// src/utils/http.ts, src/utils/casing.ts, src/config.ts) and reads the answer
// as the SDK does.
import assert from 'node:assert/strict';
import {after, before} from 'node:test';

import {startServer} from '../browser/support/server.js';

// Named as the SDK's constructor requires of an apiKey (config.ts: sp_ or sk_).
export const ADMIN = 'sk_test_admin_0123456789abcdef';

let server;
// Starts the server before the file's tests and stops it after them.
// No failure limit: some calls here are refused on purpose.
export function startSpooledServer() {
  before(async () => {
    server = await startServer({apiKeys: [`admin:${ADMIN}`], args: ['--auth-failure-limit', '0']});
  });
  after(async () => { await server?.stop(); });
}
export const serverUrl = () => server.url;

// casing.ts's SKIP_CONVERSION_KEYS: user blobs keep their keys both ways.
const KEEP = new Set(['payload', 'result', 'metadata', 'tags', 'settings', 'details', 'extra',
                      'payloadTemplate', 'payload_template', 'customLimits', 'custom_limits']);

// casing.ts's toCamelCase (snakeToCamel on every key but inside user blobs).
export function camel(v) {
  if (Array.isArray(v)) return v.map(camel);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => {
    const key = k.replace(/_([0-9]+)/g, '$1').replace(/_([a-z])/g, (_, c) => c.toUpperCase());
    return [key, KEEP.has(k) || KEEP.has(key) ? x : camel(x)];
  }));
}

// casing.ts's toSnakeCase (convertRequest): camelToSnake on every key but
// inside user blobs; a Date becomes its ISO string. Snake keys stay as they are.
export function snake(v) {
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.map(snake);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => {
    const key = k.replace(/[A-Z]/g, (l) => `_${l.toLowerCase()}`);
    return [key, KEEP.has(k) || KEEP.has(key) ? x : snake(x)];
  }));
}

// casing.ts's convertQueryParams: top-level keys to snake_case, undefined dropped.
function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params ?? {})) {
    if (v !== undefined) q.append(k.replace(/[A-Z]/g, (l) => `_${l.toLowerCase()}`), String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

// A client as HttpClient makes requests: resolveConfig's default headers
// (Content-Type even on a body-less POST), `Authorization: Bearer` with its
// current token (setAuthToken swaps it), the body through convertRequest, the
// query through convertQueryParams (`{params}`), and the answer camelCased
// (undefined for a 204). Health routes skip the /api/v1 prefix.
export function sdk(token) {
  const c = {token};
  c.call = async (method, path, body, {params} = {}) => {
    const headers = {'Content-Type': 'application/json', Accept: 'application/json',
                     'User-Agent': '@spooled/sdk-nodejs/1.0.39'};
    if (c.token) headers.Authorization = `Bearer ${c.token}`;
    const prefix = path.startsWith('/health') ? '' : '/api/v1';
    const r = await fetch(`${server.url}${prefix}${path}${query(params)}`, {
      method, headers,
      body: method === 'GET' || body === undefined ? undefined : JSON.stringify(snake(body))});
    const text = await r.text();
    const json = (r.headers.get('content-type') ?? '').includes('application/json');
    return {status: r.status, data: r.status === 204 ? undefined : json ? camel(JSON.parse(text)) : text};
  };
  return c;
}

export const kind = (v) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
// Asserts each field of `spec` has one of its JSON types ('number|null', ...).
export function shape(obj, spec, what) {
  for (const [field, types] of Object.entries(spec)) {
    assert.ok(types.split('|').includes(kind(obj?.[field])),
              `${what}.${field}: want ${types}, got ${JSON.stringify(obj?.[field])}`);
  }
}
