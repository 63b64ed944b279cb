/**
 * A reading thread of logRanges.ts: reads the byte ranges of a log it is sent, one at a time, and
 * sends back each range's part (plain data) for the merge.
 */
import { parentPort } from 'node:worker_threads';
import { readAccessRange, readSlowRange, type RangeJob } from './logRanges';

parentPort?.on('message', (job: RangeJob) => {
  try {
    const result = job.kind === 'access' ? readAccessRange(job) : readSlowRange(job);
    parentPort!.postMessage({ result });
  } catch (err) {
    parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
