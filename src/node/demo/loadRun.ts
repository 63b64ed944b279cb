/**
 * A short, bounded load on loopback against the sample app (directly or through nginx): a fixed
 * mix of its pages, static files, comment posts and missing pages, drawn from a seeded generator so
 * two runs send the same sequence. Stops by itself after `requests` requests or `seconds` seconds;
 * at the time limit the requests still in flight are cut, as a benchmarker does (nginx logs 499).
 */
import { Agent, request, type ClientRequest } from 'node:http';

export interface LoadOptions {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  requests: number;
  seconds: number;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  seed?: number;
  /** Number of posts and users in the database, to draw ids from. */
  posts: number;
  users: number;
}

export interface LoadResult {
  sent: number;
  seconds: number;
  byStatus: Record<string, number>;
  /** Requests that got no response at all (connection errors). */
  failed: number;
  /** Requests in flight at the time limit, cut off. */
  cut: number;
  stoppedBy: 'requests' | 'time';
}

interface Req { method: 'GET' | 'POST'; path: string; body?: string }

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Static files a contest box's nginx serves itself (the load asks for them like a browser would). */
export const STATIC_FILES: Record<string, string> = {
  '/css/style.css': 'body { font-family: sans-serif; }\n',
  '/js/timeago.min.js': '(function(){})();\n',
  '/favicon.ico': '\u0000',
};

/** The request mix, per 100: posts 45, static 30, comments 12, account pages 6, missing 5, index 2. */
export function nextRequest(rand: () => number, posts: number, users: number): Req {
  const r = rand() * 100;
  const pick = (n: number) => 1 + Math.floor(rand() * n);
  if (r < 45) return { method: 'GET', path: `/posts/${pick(posts)}` };
  if (r < 75) { const files = Object.keys(STATIC_FILES); return { method: 'GET', path: files[Math.floor(rand() * files.length)] }; }
  if (r < 87) return { method: 'POST', path: '/comment', body: `post_id=${pick(posts)}&comment=${encodeURIComponent('nice shot')}` };
  if (r < 93) return { method: 'GET', path: `/@user${pick(users)}` };
  if (r < 98) return { method: 'GET', path: `/posts/${posts + pick(posts)}` };
  return { method: 'GET', path: '/' };
}

function send(agent: Agent, base: URL, req: Req, inFlight: Set<ClientRequest>): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'user-agent': 'query-insight-demo' };
    if (req.body) { headers['content-type'] = 'application/x-www-form-urlencoded'; headers['content-length'] = Buffer.byteLength(req.body); }
    const r = request({ host: base.hostname, port: base.port, path: req.path, method: req.method, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    r.setTimeout(60_000, () => r.destroy(new Error(`${req.method} ${req.path}: no answer within 60 s`)));
    r.on('error', reject);
    r.on('close', () => inFlight.delete(r));
    inFlight.add(r);
    r.end(req.body);
  });
}

/** Runs the load and resolves when it is done; never runs past its time limit by more than one request. */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const base = new URL(opts.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: opts.concurrency ?? 4 });
  const rand = rng(opts.seed ?? 20240101);
  const started = Date.now();
  const deadline = started + opts.seconds * 1000;
  const result: LoadResult = { sent: 0, seconds: 0, byStatus: {}, failed: 0, cut: 0, stoppedBy: 'requests' };
  const inFlight = new Set<ClientRequest>();
  let timeUp = false;
  const timer = setTimeout(() => {
    timeUp = true;
    result.stoppedBy = 'time';
    for (const r of inFlight) r.destroy(new Error('time limit'));
  }, opts.seconds * 1000);
  const worker = async (): Promise<void> => {
    while (result.sent < opts.requests) {
      if (timeUp || Date.now() >= deadline) { result.stoppedBy = 'time'; return; }
      const req = nextRequest(rand, opts.posts, opts.users);
      result.sent++;
      try {
        const status = await send(agent, base, req, inFlight);
        result.byStatus[status] = (result.byStatus[status] ?? 0) + 1;
      } catch {
        if (timeUp) result.cut++;
        else result.failed++;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  } finally {
    clearTimeout(timer);
    agent.destroy();
  }
  result.seconds = (Date.now() - started) / 1000;
  return result;
}
