// A server (with `apiKeys`), an API client (with `key`) and a browser, torn
// down after the test: the set-up the console's page tests share.
import {startServer} from './server.js';
import {client} from './client.js';
import {launch} from './browser.js';

export async function setUp(t, {apiKeys = [], key} = {}) {
  const server = await startServer({apiKeys});
  const api = client(server.url, key);
  const browser = await launch();
  t.after(async () => {
    await browser.close();
    await server.stop();
  });
  return {server, api, browser, page: browser.page};
}
