/**
 * An nginx LTSV access log for the sample app (test/fixtures/sample-app, chi routes), generated with
 * known figures: per endpoint a request count and response times whose total is exact, so the
 * Endpoints view's order and the CodeLens text are known in advance.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SampleEndpoint {
  method: string;
  /** The chi pattern the requests fall under (what the view shows). */
  pattern: string;
  /** Makes the i-th request's path. */
  path: (i: number) => string;
  count: number;
  /** Response times in ms, used in turn; their mean times count gives the total. */
  times: number[];
  /** Every n-th request fails with 500 (0: none). */
  errorEvery?: number;
  /** Every n-th request is closed by the client before the answer: nginx writes 499 (0: none). */
  abortEvery?: number;
}

export const SAMPLE_ENDPOINTS: SampleEndpoint[] = [
  { method: 'GET', pattern: '/posts/{id}', path: (i) => `/posts/${10000 + i * 7}`, count: 300, times: [30, 40, 50, 60, 70] },
  { method: 'GET', pattern: '/', path: () => '/', count: 100, times: [80, 100, 120] },
  { method: 'GET', pattern: '/@{accountName}', path: (i) => `/@user${i % 40}`, count: 80, times: [60, 75, 90] },
  { method: 'POST', pattern: '/initialize', path: () => '/initialize', count: 1, times: [2000] },
  { method: 'POST', pattern: '/comment', path: () => '/comment', count: 50, times: [10, 20, 30], errorEvery: 17, abortEvery: 30 },
  { method: 'GET', pattern: '/css/*.css', path: (i) => `/css/style${i % 2}.css`, count: 200, times: [1] },
];

/** The log's text: requests interleaved round-robin, as a benchmark would produce them, from `startMs` on (3 ms apart). */
export function sampleAccessLog(startMs = Date.UTC(2024, 4, 1, 12, 0, 0)): string {
  const lines: string[] = [];
  const next = SAMPLE_ENDPOINTS.map(() => 0);
  let t = startMs;
  for (let left = SAMPLE_ENDPOINTS.reduce((s, e) => s + e.count, 0); left > 0;) {
    SAMPLE_ENDPOINTS.forEach((e, k) => {
      const i = next[k];
      if (i >= e.count) return;
      next[k]++;
      left--;
      const ms = e.times[i % e.times.length];
      const status = e.errorEvery && (i + 1) % e.errorEvery === 0 ? 500 : e.abortEvery && (i + 1) % e.abortEvery === 0 ? 499
        : e.method === 'POST' && e.pattern === '/comment' ? 302 : 200;
      t += 3;
      lines.push([
        `time:${new Date(t).toISOString()}`, 'host:127.0.0.1', 'forwardedfor:-', 'req:-', `method:${e.method}`, `uri:${e.path(i)}`,
        `status:${status}`, `size:${100 + (i % 50)}`, 'referer:-', 'ua:isucandar', `reqtime:${(ms / 1000).toFixed(3)}`, `apptime:${(ms / 1000).toFixed(3)}`,
      ].join('\t'));
    });
  }
  return lines.join('\n') + '\n';
}

/** Writes `logs/access.log` into a workspace and returns its path. */
export function writeSampleAccessLog(workspace: string): string {
  const dir = join(workspace, 'logs');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'access.log');
  writeFileSync(path, sampleAccessLog());
  return path;
}

/** Total seconds of an endpoint in the generated log. */
export function totalSeconds(e: SampleEndpoint): number {
  let ms = 0;
  for (let i = 0; i < e.count; i++) ms += e.times[i % e.times.length];
  return ms / 1000;
}
