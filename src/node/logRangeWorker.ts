/**
 * A reading thread of logRanges.ts: sent a log's ranges, a shared counter and a port, it takes the
 * next range nobody took yet, reads it, and sends its part (plain data) back on the port for the
 * merge, until none is left.
 */
import { parentPort } from 'node:worker_threads';
import { readAccessRange, readSlowRange, takeJob, type RangeReply, type RangeWork } from './logRanges';

parentPort?.on('message', ({ jobs, next, port }: RangeWork) => {
  const counter = new Int32Array(next);
  try {
    for (let k = takeJob(counter); k < jobs.length; k = takeJob(counter)) {
      const job = jobs[k];
      const result = job.kind === 'access' ? readAccessRange(job) : readSlowRange(job);
      port.postMessage({ k, result } satisfies RangeReply<typeof result>);
    }
    port.postMessage({ done: true } satisfies RangeReply<never>);
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies RangeReply<never>);
  }
});
