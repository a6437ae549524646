// The console's one way to the server: JSON over fetch with the API key from
// sessionStorage (per tab, gone when the tab closes). Errors become ApiError
// carrying the server's {code, message, details}; a 401 also tells the app
// to ask for a key again.

const KEY_STORAGE = 'redrive.apiKey';

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export const apiKey = {
  get: () => sessionStorage.getItem(KEY_STORAGE),
  set: (key) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

// A fresh Idempotency-Key: 128 random bits in hex (crypto.randomUUID needs a
// secure context; a console on plain http has none).
function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const MUTATING = new Set(['POST', 'PUT', 'DELETE']);
const RETRY_AFTER_MS = 500;

// `key` overrides the stored key (the sign-in form tries a key first).
// `reason` is sent as X-Redrive-Reason (kept in the audit log). Every change
// carries an Idempotency-Key, so when the server's answer is lost on the way
// (a network error) the request is sent once more with the same key: the
// server answers what it did the first time instead of doing it twice.
export async function call(method, path, body, {key, reason} = {}) {
  const headers = {Accept: 'application/json'};
  const useKey = key ?? apiKey.get();
  if (useKey) headers.Authorization = `Bearer ${useKey}`;
  if (reason) headers['X-Redrive-Reason'] = encodeURIComponent(reason);
  const init = {method, headers, cache: 'no-store'};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (!MUTATING.has(method)) return send(path, init, key);
  headers['Idempotency-Key'] = newIdempotencyKey();
  try {
    return await send(path, init, key);
  } catch (err) {
    if (err.code !== 'NETWORK_ERROR') throw err;
    await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS));
    return send(path, init, key);
  }
}

async function send(path, init, key) {
  let response;
  try {
    response = await fetch(`/api/v1${path}`, init);
  } catch (e) {
    throw new ApiError(0, 'NETWORK_ERROR', `The server did not answer (${e.message}).`);
  }
  const text = response.status === 204 ? '' : await response.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!response.ok) {
    const err = new ApiError(response.status, data?.code ?? `HTTP_${response.status}`,
                             data?.message ?? response.statusText, data?.details);
    if (response.status === 401 && key === undefined) onUnauthorized(err);
    throw err;
  }
  return data;
}

export const get = (path, opts) => call('GET', path, undefined, opts);
export const post = (path, body = {}, opts) => call('POST', path, body, opts);
export const put = (path, body, opts) => call('PUT', path, body, opts);
export const del = (path, opts) => call('DELETE', path, undefined, opts);

// ?a=1&b=2 from an object, leaving out empty values.
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const enc = encodeURIComponent;
