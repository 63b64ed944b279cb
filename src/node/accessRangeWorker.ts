/** A reading thread of logRanges.ts for access logs (see rangeJobs.ts). */
import { readAccessRange } from './accessRange';
import { serveRangeJobs } from './rangeJobs';

serveRangeJobs(readAccessRange);
