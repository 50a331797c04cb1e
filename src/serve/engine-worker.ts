/**
 * An engine thread: one policy version. It opens the Session from the files it is given
 * (seconds for a 10,000-node snapshot, off the HTTP thread), says whether that worked,
 * then answers the requests the HTTP thread sends, one after another (a Session answers
 * one question at a time: the kernel's state is restored after each), and renders each
 * response body (engine-handler.ts). A reload starts a new engine thread; this one is
 * ended once the requests sent to it are answered, so every response comes whole from one
 * version.
 *
 * Loaded from dist/ (dist/serve/engine-worker.js) like the Piscina workers: Node 20 cannot
 * start a worker from TypeScript, so `npm run build` must have run.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { EngineInit, EngineReply, EngineRequest } from './engine-messages.js';
import { handleRequest, openVersion } from './engine-handler.js';

const port = parentPort!;
const { loaded, message } = openVersion(workerData as EngineInit);
port.postMessage(message);

if (loaded) {
  // One request at a time, in arrival order: each waits for the one before it.
  let queue: Promise<void> = Promise.resolve();
  port.on('message', (req: EngineRequest) => {
    queue = queue.then(async () => {
      let reply: EngineReply;
      try {
        reply = await handleRequest(loaded, req);
      } catch (e) {
        reply = { type: 'reply', id: req.id, status: 500, error: (e as Error)?.stack ?? String(e) };
      }
      port.postMessage(reply);
    });
  });
}
