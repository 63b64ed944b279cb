/** A reading thread of logRanges.ts for slow logs (see rangeJobs.ts). */
import { readSlowRange } from './slowRange';
import { serveRangeJobs } from './rangeJobs';

serveRangeJobs(readSlowRange);
