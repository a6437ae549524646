// The test's own HTTP client: seeds jobs through the API and acts as a worker.
export function client(baseUrl, key) {
  async function call(method, path, body) {
    const headers = {};
    if (key) headers.Authorization = `Bearer ${key}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await fetch(`${baseUrl}/api/v1${path}`,
                          {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
    const text = await r.text();
    const data = text ? JSON.parse(text) : null;
    if (!r.ok) throw new Error(`${method} ${path} → ${r.status} ${text}`);
    return data;
  }
  const api = {
    get: (p) => call('GET', p),
    post: (p, b = {}) => call('POST', p, b),
    put: (p, b) => call('PUT', p, b),
    del: (p) => call('DELETE', p),
    async enqueue(queue, payload, extra = {}) {
      return (await api.post('/jobs', {queue_name: queue, payload, ...extra})).id;
    },
    // Claims one job of `queue` as `worker`; returns it (or undefined).
    async claim(queue, worker = 'test-worker') {
      const r = await api.post('/jobs/claim',
                               {queue_name: queue, worker_id: worker, lease_duration_secs: 3600});
      return r.jobs[0];
    },
    async completeNext(queue, result = {ok: true}, worker = 'test-worker') {
      const job = await api.claim(queue, worker);
      await api.post(`/jobs/${job.id}/complete`, {worker_id: worker, lease_id: job.lease_id, result});
      return job;
    },
    async failNext(queue, error, extra = {}, worker = 'test-worker') {
      const job = await api.claim(queue, worker);
      await api.post(`/jobs/${job.id}/fail`,
                     {worker_id: worker, lease_id: job.lease_id, error, ...extra});
      return job;
    },
    // Enqueues a job and fails its first attempt for good: max_retries_exceeded
    // (it had max_retries 0), or non_retryable with `noRetry`. Returns its id.
    async deadJob(queue, payload, error, {noRetry = false, ...extra} = {}) {
      const id = await api.enqueue(queue, payload, noRetry ? extra : {max_retries: 0, ...extra});
      await api.failNext(queue, error, noRetry ? {no_retry: true} : {});
      return id;
    },
  };
  return api;
}

// One job in every status. Returns their ids by status (dead: several).
export async function seedEveryStatus(api) {
  const ids = {};
  ids.completed = await api.enqueue('emails', {to: 'a@example.com'}, {tags: {tenant: 'acme'}});
  await api.completeNext('emails');
  ids.processing = await api.enqueue('emails', {to: 'b@example.com'});
  await api.claim('emails', 'worker-7');
  ids.cancelled = await api.enqueue('emails', {to: 'c@example.com'});
  await api.del(`/jobs/${ids.cancelled}`);
  ids.pending = await api.enqueue('emails', {to: 'd@example.com'});
  ids.scheduled = await api.enqueue('emails', {to: 'e@example.com'},
                                    {scheduled_at: new Date(Date.now() + 3600e3).toISOString()});
  // The DLQ: payments that failed for good, with an error that looks like markup.
  ids.dead = [];
  for (let i = 0; i < 3; i++) {
    ids.dead.push(await api.deadJob('payments', {amount: 100 + i, currency: 'EUR'},
                                    `<img src=x onerror=alert(1)> card declined #${i}`,
                                    {tags: {customer: `c${i}`}}));
  }
  ids.nonRetryable = await api.deadJob('payments', {amount: 999, currency: 'XXX'},
                                       'unknown currency XXX', {noRetry: true});
  return ids;
}
