/**
 * Two benchmark rounds of the sample app (test/fixtures/sample-app, chi routes) as nginx LTSV access
 * logs, where the fix let the benchmarker send more requests: the comparison must read by the time
 * per request, not by the total. Per endpoint, before → after:
 *   GET /               7 → 57 requests, mean 2.318 s → 494 ms (the case): faster, total up
 *   GET /posts/{id}    60 → 300, 250 ms → 50 ms: faster, total the same
 *   GET /@{accountName} 40 → 90, the same times: within noise, total ×2.25
 *   POST /comment        30 → 30, 50 ms → 200 ms: slower
 *   POST /initialize    1 → 1: too few to judge
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

interface Endpoint {
  method: string;
  path: (i: number) => string;
  count: number;
  /** Response times in seconds, used in turn. */
  times: number[];
}

export const ROUND_BEFORE: Endpoint[] = [
  { method: 'GET', path: () => '/', count: 7, times: [1.9, 2.1, 2.2, 2.3, 2.4, 2.5, 2.826] },
  { method: 'GET', path: (i) => `/posts/${1000 + i}`, count: 60, times: [0.2, 0.25, 0.3] },
  { method: 'GET', path: (i) => `/@user${i % 20}`, count: 40, times: [0.09, 0.12, 0.15] },
  { method: 'POST', path: () => '/comment', count: 30, times: [0.04, 0.05, 0.06] },
  { method: 'POST', path: () => '/initialize', count: 1, times: [3.2] },
];

export const ROUND_AFTER: Endpoint[] = [
  { method: 'GET', path: () => '/', count: 57, times: [0.394, 0.494, 0.594] },
  { method: 'GET', path: (i) => `/posts/${1000 + i}`, count: 300, times: [0.04, 0.05, 0.06] },
  { method: 'GET', path: (i) => `/@user${i % 20}`, count: 90, times: [0.09, 0.12, 0.15] },
  { method: 'POST', path: () => '/comment', count: 30, times: [0.19, 0.2, 0.21] },
  { method: 'POST', path: () => '/initialize', count: 1, times: [2.9] },
];

/** One round's log: requests interleaved round-robin, as a benchmarker produces them. */
export function roundLog(endpoints: Endpoint[], start: number): string {
  const lines: string[] = [];
  const next = endpoints.map(() => 0);
  let t = start;
  for (let left = endpoints.reduce((s, e) => s + e.count, 0); left > 0;) {
    endpoints.forEach((e, k) => {
      const i = next[k];
      if (i >= e.count) return;
      next[k]++;
      left--;
      const secs = e.times[i % e.times.length].toFixed(3);
      t += 50;
      lines.push([
        `time:${new Date(t).toISOString()}`, 'host:127.0.0.1', 'forwardedfor:-', 'req:-', `method:${e.method}`, `uri:${e.path(i)}`,
        `status:${e.method === 'POST' && e.path(i) === '/comment' ? 302 : 200}`, `size:${200 + (i % 30)}`, 'referer:-', 'ua:isucandar',
        `reqtime:${secs}`, `apptime:${secs}`,
      ].join('\t'));
    });
  }
  return lines.join('\n') + '\n';
}

/** Writes `logs/access-round1.log` and `logs/access-round2.log` into a workspace; returns their paths. */
export function writeLoadChangedLogs(workspace: string): { before: string; after: string } {
  const dir = join(workspace, 'logs');
  mkdirSync(dir, { recursive: true });
  const before = join(dir, 'access-round1.log');
  const after = join(dir, 'access-round2.log');
  writeFileSync(before, roundLog(ROUND_BEFORE, Date.UTC(2024, 4, 1, 12, 0, 0)));
  writeFileSync(after, roundLog(ROUND_AFTER, Date.UTC(2024, 4, 1, 13, 0, 0)));
  return { before, after };
}
