/** Request counts per route from local access logs, for the CPU per request of `profile --access-log`. */
import { guessAccessFormat } from '../core/logs/logKind';
import type { Route } from '../core/model';
import type { CountedEndpoint } from '../core/profile/requestCounts';
import { readLogHead } from './logHead';
import { accessAnalyzer, analyzeAccessSources } from './logSources';

/** Reads the logs grouped by `routes` (the format guessed from the first log); throws when a log cannot be read. */
export async function countRequests(paths: readonly string[], routes: readonly Route[]): Promise<CountedEndpoint[]> {
  const format = guessAccessFormat(readLogHead(paths[0]));
  const analyzer = accessAnalyzer({ format, routes: [...routes] });
  const report = await analyzeAccessSources(paths.map((path) => ({ kind: 'local' as const, path })), analyzer);
  const failed = report.sources.find((s) => s.error);
  if (failed) throw new Error(failed.error);
  return report.endpoints;
}
