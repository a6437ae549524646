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

// `key` overrides the stored key (the sign-in form tries a key first).
export async function call(method, path, body, {key} = {}) {
  const headers = {Accept: 'application/json'};
  const useKey = key ?? apiKey.get();
  if (useKey) headers.Authorization = `Bearer ${useKey}`;
  const init = {method, headers, cache: 'no-store'};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
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
export const post = (path, body = {}) => call('POST', path, body);
export const put = (path, body) => call('PUT', path, body);
export const del = (path) => call('DELETE', path);

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
