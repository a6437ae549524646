// Live updates: the server's event stream (GET /api/v1/events, server-sent
// events read through fetch so the key travels in the Authorization header,
// not the URL). Each job event asks the app to refresh the page shown (a
// burst of events is one refresh); while the stream is down the app polls,
// and the stream is tried again with a growing pause.
import {apiKey} from './api.js';

const RETRY_MIN_MS = 1000;
const RETRY_MAX_MS = 30000;

let controller = null;  // of the stream being read; null: stopped

// Starts the stream. onEvent({type, data}) for each event; onState(true)
// when it is open, onState(false) when it dropped (then polling covers).
export function startLive({onEvent, onState}) {
  stopLive();
  const mine = new AbortController();
  controller = mine;
  let pause = RETRY_MIN_MS;
  (async () => {
    while (controller === mine) {
      let opened = false;
      try {
        await read(mine.signal, () => { opened = true; pause = RETRY_MIN_MS; onState(true); },
                   onEvent);
      } catch { /* dropped: polling covers until it is back */ }
      if (controller !== mine) return;
      if (opened) onState(false);
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, RETRY_MAX_MS);
    }
  })();
}

export function stopLive() {
  if (controller) controller.abort();
  controller = null;
}

async function read(signal, onOpen, onEvent) {
  const headers = {Accept: 'text/event-stream'};
  const key = apiKey.get();
  if (key) headers.Authorization = `Bearer ${key}`;
  const response = await fetch('/api/v1/events', {headers, signal, cache: 'no-store'});
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  onOpen();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const {value, done} = await reader.read();
    if (done) throw new Error('the stream ended');
    text += decoder.decode(value, {stream: true});
    let end;
    while ((end = text.indexOf('\n\n')) >= 0) {
      const frame = text.slice(0, end);
      text = text.slice(end + 2);
      for (const line of frame.split('\n')) {
        if (!line.startsWith('data:')) continue;
        let event;
        try { event = JSON.parse(line.slice(5)); } catch { continue; }
        if (event.type === 'Error') throw new Error(event.data?.message ?? 'the stream ended');
        onEvent(event);
      }
    }
  }
}
