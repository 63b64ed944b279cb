/** A reading thread of logRanges.ts for slow logs (see rangeJobs.ts). */
import { readSlowRange, TIME_HEADER } from './slowRange';
import { serveRangeJobs } from './rangeJobs';

serveRangeJobs(readSlowRange, TIME_HEADER);
