// npm run demo:load -- --url URL [--seconds S] [--requests N] [--concurrency N]
// The demo's load generator on its own: the seeded request mix of a benchmark round (pages, static
// files, comment posts, missing pages) against the sample app that `npm run demo` keeps serving.
// The demo workspace runs it as the task "Query Insight demo: load the app", e.g. between
// "Start measuring" and "Stop measuring".
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadKit, loadSummary, say, scriptOptions } from './demo/setup.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: npm run demo:load -- --url http://127.0.0.1:PORT [--seconds S] [--requests N] [--concurrency N]';

const { values: args, num } = scriptOptions({ url: { type: 'string' }, seconds: { type: 'string' }, requests: { type: 'string' }, concurrency: { type: 'string' } }, USAGE);
let url;
try {
  url = new URL(args.url ?? '');
  if (!/^https?:$/.test(url.protocol)) throw new Error('not http');
} catch {
  console.error(`--url must be the app's address, e.g. http://127.0.0.1:8080 (got "${args.url ?? ''}")\n${USAGE}`);
  process.exit(2);
}
const seconds = num(args.seconds, 20, 'seconds');
const requests = num(args.requests, 1_000_000, 'requests');
const concurrency = num(args.concurrency, 4, 'concurrency');

const kit = await loadKit(root);
say(`loading ${url.origin} for ${seconds} s (at most ${requests.toLocaleString('en-US')} requests, ${concurrency} at a time)…`);
// why: a new seed each time, so that repeated loads do not ask for the very same pages in the same order
const load = await kit.runLoad({ baseUrl: url.origin, requests, seconds, concurrency, posts: kit.SAMPLE_POSTS, users: kit.SAMPLE_USERS, seed: Date.now() % 2 ** 31 });
say(loadSummary({ load }));
const answered = Object.values(load.byStatus).reduce((n, c) => n + c, 0);
if (answered === 0) {
  console.error(`no request was answered: is the demo still running? (${load.failed} without answer)`);
  process.exit(1);
}
