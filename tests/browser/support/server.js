// Starts the real `redrive serve` binary (REDRIVE_BINARY, set by CTest) on a
// free loopback port with a fresh SQLite store, and stops it by its PID.
// `args`: more `serve` flags (e.g. ['--webhook-retry-base-ms', '1']).
import {spawn} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

export async function startServer({apiKeys = [], args: extraArgs = []} = {}) {
  const binary = process.env.REDRIVE_BINARY;
  if (!binary) throw new Error('set REDRIVE_BINARY to the built redrive binary');
  const dir = mkdtempSync(join(tmpdir(), 'redrive-browser-'));
  const args = ['serve', '--listen', '127.0.0.1:0', '--store', `sqlite:${join(dir, 'redrive.db')}`];
  for (const key of apiKeys) args.push('--api-key', key);
  args.push(...extraArgs);
  const child = spawn(binary, args, {stdio: ['ignore', 'pipe', 'pipe']});
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${stderr}`)), 15000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${stderr}`));
    });
  });
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');  // this child's PID only
        await exited;
      }
      rmSync(dir, {recursive: true, force: true});
    },
  };
}
