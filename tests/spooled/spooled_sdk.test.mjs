// Spooled's Node SDK (Spooled-Cloud/spooled-sdk-nodejs, 1.0.39) against the
// real `redrive serve`, replayed call by call on the wire: what it sends and
// the response fields its types declare, with their JSON types. Mirrors
//   src/resources/{api-keys,auth,dashboard,health}.ts  the calls
//   src/types/{api-keys,auth,dashboard,health}.ts      the fields read
//   src/utils/http.ts, src/utils/casing.ts, src/config.ts  headers and casing
//   src/client.ts                                      login, refresh, logout
// Run by CTest (spooled_sdk_e2e); needs node only.
import assert from 'node:assert/strict';
import {test} from 'node:test';

import {client} from '../browser/support/client.js';
import {ADMIN, kind, sdk, serverUrl, shape, startSpooledServer} from './spooled_sdk_support.mjs';

// The server, the SDK-like client (sdk(token).call(method, path, body) with
// HttpClient's headers, convertRequest and convertResponse) and shape() are in
// spooled_sdk_support.mjs.
startSpooledServer();

// src/types/*.ts. An optional field (`lastUsed?: string`) may be absent, or
// null, as Redrive and Spooled's server send an unset one.
const API_KEY_SUMMARY = {id: 'string', name: 'string', queues: 'array',
                         rateLimit: 'number|null|undefined', isActive: 'boolean',
                         createdAt: 'string', lastUsed: 'string|null|undefined',
                         expiresAt: 'string|null|undefined'};
const LOGIN_RESPONSE = {accessToken: 'string', refreshToken: 'string', tokenType: 'string',
                        expiresIn: 'number', refreshExpiresIn: 'number'};
const REFRESH_RESPONSE = {accessToken: 'string', tokenType: 'string', expiresIn: 'number'};

// client.ts decodeJwtExp: the SDK reads `exp` to decide when to log in again.
const expOf = (jwt) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url')).exp;

test('health: HealthResource.get, liveness() and readiness()', async () => {
  for (const c of [sdk(ADMIN), sdk()]) {  // public: with or without a key
    const h = await c.call('GET', '/health');
    assert.equal(h.status, 200);
    shape(h.data, {status: 'string', version: 'string|null|undefined', database: 'boolean',
                   cache: 'boolean'}, 'HealthResponse');
    assert.deepEqual([h.data.status, h.data.database, h.data.cache], ['healthy', true, true]);
    // liveness()/readiness() answer true on any 2xx, false on anything else.
    assert.equal((await c.call('GET', '/health/live')).status, 200);
    assert.equal((await c.call('GET', '/health/ready')).status, 200);
  }
});

test('api keys: create shows the secret once; list, get and update answer ApiKeySummary', async () => {
  const c = sdk(ADMIN);
  const expiresAt = new Date(Date.now() + 30 * 86400e3).toISOString();  // a Date, as toSnakeCase sends it
  const created = await c.call('POST', '/api-keys', {name: 'mailer', queues: ['emails'],
                                                     expires_at: expiresAt});
  assert.equal(created.status, 201);
  shape(created.data, {id: 'string', key: 'string', name: 'string', createdAt: 'string',
                       expiresAt: 'string|null|undefined'}, 'CreateApiKeyResponse');
  assert.equal(created.data.name, 'mailer');
  assert.equal(Date.parse(created.data.expiresAt), Date.parse(expiresAt));
  const {id, key} = created.data;

  const list = await c.call('GET', '/api-keys');
  assert.equal(list.status, 200);
  assert.equal(kind(list.data), 'array');
  list.data.forEach((k, i) => shape(k, API_KEY_SUMMARY, `ApiKeySummary[${i}]`));
  const listed = list.data.find((k) => k.id === id);
  assert.deepEqual([listed.name, listed.queues, listed.isActive], ['mailer', ['emails'], true]);
  assert.ok(!JSON.stringify(list.data).includes(key), 'list shows no secret');

  const got = await c.call('GET', `/api-keys/${id}`);
  assert.equal(got.status, 200);
  shape(got.data, API_KEY_SUMMARY, 'ApiKeySummary');
  assert.equal(got.data.id, id);
  assert.ok(!JSON.stringify(got.data).includes(key), 'get shows no secret');

  const updated = await c.call('PUT', `/api-keys/${id}`, {name: 'mailer-2', queues: ['emails', 'sms']});
  assert.equal(updated.status, 200);
  shape(updated.data, API_KEY_SUMMARY, 'ApiKeySummary');
  assert.deepEqual([updated.data.id, updated.data.name, updated.data.queues],
                   [id, 'mailer-2', ['emails', 'sms']]);
  // The secret works, within its queues.
  const mailer = sdk(key);
  assert.equal((await mailer.call('POST', '/jobs', {queue_name: 'sms', payload: {}})).status, 201);
  assert.equal((await mailer.call('POST', '/jobs', {queue_name: 'reports', payload: {}})).status, 403);
});

test('api keys: revoke answers 204; the key, its tokens and its refresh token then get 401', async () => {
  const c = sdk(ADMIN);
  const {data: {id, key}} = await c.call('POST', '/api-keys', {name: 'temp'});
  const k = sdk(key);
  assert.equal((await k.call('GET', '/dashboard')).status, 200);
  const {data: login} = await k.call('POST', '/auth/login', {api_key: key});
  const byToken = sdk(login.accessToken);
  assert.equal((await byToken.call('GET', '/dashboard')).status, 200);

  assert.equal((await c.call('DELETE', `/api-keys/${id}`)).status, 204);
  const refused = await k.call('GET', '/dashboard');
  assert.equal(refused.status, 401);
  assert.equal(refused.data.code, 'UNAUTHORIZED');
  assert.match(refused.data.message, /revoked/);
  assert.equal((await byToken.call('GET', '/dashboard')).status, 401);
  assert.equal((await k.call('POST', '/auth/login', {api_key: key})).status, 401);
  assert.equal((await k.call('POST', '/auth/refresh', {refresh_token: login.refreshToken})).status, 401);
  const got = await c.call('GET', `/api-keys/${id}`);
  assert.equal(got.data.isActive, false);  // revoked, still listed
});

// SpooledClient's constructor (config.ts validateConfig) throws "Invalid API
// key format" for an apiKey starting with neither sp_ nor sk_.
test('api keys: a created secret passes the SDK constructor\'s key check', async () => {
  const {data} = await sdk(ADMIN).call('POST', '/api-keys', {name: 'sdk-format'});
  assert.match(data.key, /^(sp|sk)_/);
});

test('auth: login gives tokens that work as Bearer; validate and me read them', async () => {
  const c = sdk(ADMIN);  // a client made with the key calls login
  const login = await c.call('POST', '/auth/login', {api_key: ADMIN});
  assert.equal(login.status, 200);
  shape(login.data, LOGIN_RESPONSE, 'LoginResponse');
  assert.equal(login.data.tokenType, 'Bearer');
  const {accessToken} = login.data;
  const exp = expOf(accessToken);
  assert.equal(typeof exp, 'number');
  assert.ok(Math.abs(exp - (Date.now() / 1000 + login.data.expiresIn)) < 5);
  assert.ok(exp * 1000 - Date.now() > 60_000, 'isJwtNearExpiry is false for a fresh token');

  c.token = accessToken;  // setAuthToken
  assert.equal((await c.call('GET', '/dashboard')).status, 200);

  const v = await c.call('POST', '/auth/validate', {token: accessToken});
  assert.equal(v.status, 200);
  shape(v.data, {valid: 'boolean', message: 'string|undefined', claims: 'object'},
        'ValidateTokenResponse');
  assert.equal(v.data.valid, true);
  shape(v.data.claims, {organizationId: 'string', apiKeyId: 'string', queues: 'array',
                        exp: 'number', iat: 'number'}, 'claims');
  assert.equal(v.data.claims.exp, exp);
  const forged = accessToken.replace(/[^.]*$/, 'A'.repeat(43));
  const bad = await c.call('POST', '/auth/validate', {token: forged});
  assert.equal(bad.status, 200);
  assert.equal(bad.data.valid, false);
  assert.equal(typeof bad.data.message, 'string');

  const me = await c.call('GET', '/auth/me');
  assert.equal(me.status, 200);
  shape(me.data, {organizationId: 'string', apiKeyId: 'string', queues: 'array',
                  issuedAt: 'string', expiresAt: 'string'}, 'CurrentUserResponse');
  assert.equal(me.data.apiKeyId, v.data.claims.apiKeyId);
  assert.equal(Date.parse(me.data.expiresAt), exp * 1000);
});

test('auth: refresh answers RefreshTokenResponse; logout ends the refresh token', async () => {
  const c = sdk(ADMIN);
  const {data: login} = await c.call('POST', '/auth/login', {api_key: ADMIN});
  c.token = login.accessToken;
  const r = await c.call('POST', '/auth/refresh', {refresh_token: login.refreshToken});
  assert.equal(r.status, 200);
  shape(r.data, REFRESH_RESPONSE, 'RefreshTokenResponse');
  assert.equal(r.data.tokenType, 'Bearer');
  assert.notEqual(r.data.accessToken, login.accessToken);
  c.token = r.data.accessToken;
  assert.equal((await c.call('GET', '/auth/me')).status, 200);

  // logout(refreshToken): POST /auth/logout {refresh_token}, 204.
  const {data: session} = await c.call('POST', '/auth/login', {api_key: ADMIN});
  assert.equal((await c.call('POST', '/auth/logout', {refresh_token: session.refreshToken})).status, 204);
  const ended = await c.call('POST', '/auth/refresh', {refresh_token: session.refreshToken});
  assert.equal(ended.status, 401);
  assert.match(ended.data.message, /logged out/);
  // logout() of a client that holds no refresh token sends no body.
  const {data: other} = await c.call('POST', '/auth/login', {api_key: ADMIN});
  assert.equal((await c.call('POST', '/auth/logout')).status, 204);
  assert.equal((await c.call('POST', '/auth/refresh', {refresh_token: other.refreshToken})).status, 401);
});

// SpooledClient.doRefreshToken (client.ts) sends config.refreshToken — the
// login's — and keeps only accessToken and expiresIn of the answer; logout()
// sends config.refreshToken too. Its Bearer on /auth/refresh is the expired
// access token, which Redrive ignores on this public route (as the valid
// one sent here).
test('auth: the SDK refreshes with its login refresh token every time, then logs out',
     async () => {
  const c = sdk(ADMIN);
  const {data: login} = await c.call('POST', '/auth/login', {api_key: ADMIN});
  const config = {accessToken: login.accessToken, refreshToken: login.refreshToken};
  c.token = config.accessToken;
  const answered = new Set();
  for (let i = 1; i <= 3; i++) {
    const r = await c.call('POST', '/auth/refresh', {refresh_token: config.refreshToken});
    assert.equal(r.status, 200, `refresh #${i}: ${JSON.stringify(r.data)}`);
    shape(r.data, REFRESH_RESPONSE, 'RefreshTokenResponse');
    if (r.data.refreshToken) answered.add(r.data.refreshToken);
    config.accessToken = c.token = r.data.accessToken;
    assert.equal((await c.call('GET', '/auth/me')).status, 200);
  }
  assert.equal((await c.call('POST', '/auth/logout', {refresh_token: config.refreshToken})).status, 204);
  // Nothing of this session refreshes after its logout.
  for (const t of [config.refreshToken, ...answered]) {
    assert.equal((await c.call('POST', '/auth/refresh', {refresh_token: t})).status, 401);
  }
});

test('dashboard: GET /dashboard has every field DashboardData declares, typed', async () => {
  const admin = client(serverUrl(), ADMIN);
  await admin.enqueue('dash', {n: 1});
  await admin.enqueue('dash', {n: 2});
  await admin.claim('dash');
  await admin.post('/workers/register', {queue_name: 'dash', hostname: 'dash-host'});

  const d = await sdk(ADMIN).call('GET', '/dashboard');
  assert.equal(d.status, 200);
  const {system, jobs, queues, workers, recentActivity} = d.data;
  shape(system, {version: 'string', uptimeSeconds: 'number', startedAt: 'string',
                 databaseStatus: 'string', cacheStatus: 'string', environment: 'string'}, 'SystemInfo');
  assert.ok(!Number.isNaN(Date.parse(system.startedAt)));
  shape(jobs, {total: 'number', pending: 'number', processing: 'number', completed24h: 'number',
               failed24h: 'number', deadletter: 'number', avgWaitTimeMs: 'number|null|undefined',
               avgProcessingTimeMs: 'number|null|undefined'}, 'JobSummaryStats');
  assert.ok(jobs.pending >= 1 && jobs.processing >= 1 && jobs.total >= 2);
  assert.equal(kind(queues), 'array');
  queues.forEach((q, i) => shape(q, {name: 'string', pending: 'number', processing: 'number',
                                     paused: 'boolean'}, `QueueSummary[${i}]`));
  assert.deepEqual(queues.find((q) => q.name === 'dash'),
                   {name: 'dash', pending: 1, processing: 1, paused: false});
  shape(workers, {total: 'number', healthy: 'number', unhealthy: 'number'}, 'DashboardWorkerSummary');
  assert.ok(workers.healthy >= 1);
  assert.equal(workers.total, workers.healthy + workers.unhealthy);
  shape(recentActivity, {jobsCreated1h: 'number', jobsCompleted1h: 'number', jobsFailed1h: 'number'},
        'RecentActivity');
});
