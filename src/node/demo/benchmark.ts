/**
 * One benchmark round against the sample app, as on a contest box: the slow log on for the app's
 * sessions (every statement, long_query_time = 0), the app behind nginx with the documented LTSV
 * access log (or, without nginx, the app's own LTSV log), a bounded load, then everything the round
 * started is stopped. Leaves an access log and a slow log behind.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MariaDbServer } from '../privateMariaDb';
import { runLoad, STATIC_FILES, type LoadResult } from './loadRun';
import { nginxAvailable, startNginxFront, type NginxFront } from './nginxFront';
import { startSampleAppServer } from './sampleAppServer';
import { SAMPLE_DB, SAMPLE_POSTS, SAMPLE_USERS } from './sampleDatabase';

export interface BenchmarkOptions {
  db: MariaDbServer;
  appDir: string;
  /** docs/nginx-log-formats.md, whose LTSV log_format nginx uses. */
  docsFile: string;
  /** Where the logs (and nginx's prefix) go. */
  outDir: string;
  /** Names the logs: access-LABEL.ltsv, slow-LABEL.log. */
  label: string;
  requests: number;
  seconds: number;
  concurrency?: number;
  /** false: the app writes the access log itself even when nginx is installed. */
  nginx?: boolean;
  /** Called with the nginx process id while it runs (for a caller that must be able to kill it). */
  onNginx?: (nginx: NginxFront | undefined) => void;
}

export interface BenchmarkResult {
  accessLog: string;
  slowLog: string;
  load: LoadResult;
  /** 'nginx' when nginx wrote the access log, 'app' when the app did. */
  accessLogBy: 'nginx' | 'app';
}

const quote = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Runs one round; the logs are fresh files (an earlier round's logs of the same label are replaced). */
export async function runBenchmark(opts: BenchmarkOptions): Promise<BenchmarkResult> {
  mkdirSync(opts.outDir, { recursive: true });
  const accessLog = join(opts.outDir, `access-${opts.label}.ltsv`);
  const slowLog = join(opts.outDir, `slow-${opts.label}.log`);
  rmSync(accessLog, { force: true });
  rmSync(slowLog, { force: true });
  writeFileSync(accessLog, '');
  const useNginx = opts.nginx !== false && !!nginxAvailable();
  // why: long_query_time = 0 globally, as the README tells users to: every statement of sessions
  // opened from now on is logged. This session keeps its own (default) value, so these SETs are not.
  opts.db.sql(`SET GLOBAL slow_query_log_file = ${quote(slowLog)}; SET GLOBAL long_query_time = 0; SET GLOBAL slow_query_log = 1;`);
  const app = await startSampleAppServer({
    appDir: opts.appDir, socket: opts.db.socket, user: opts.db.user, database: SAMPLE_DB,
    accessLog: useNginx ? undefined : accessLog, staticFiles: useNginx ? {} : STATIC_FILES,
  });
  let nginx: NginxFront | undefined;
  try {
    if (useNginx) {
      nginx = await startNginxFront({
        dir: join(opts.outDir, `nginx-${opts.label}`), upstreamPort: app.port, accessLog, docsFile: opts.docsFile, staticFiles: STATIC_FILES,
      });
      opts.onNginx?.(nginx);
    }
    const load = await runLoad({
      baseUrl: `http://127.0.0.1:${nginx?.port ?? app.port}`, requests: opts.requests, seconds: opts.seconds,
      concurrency: opts.concurrency, posts: SAMPLE_POSTS, users: SAMPLE_USERS,
    });
    return { accessLog, slowLog, load, accessLogBy: useNginx ? 'nginx' : 'app' };
  } finally {
    await nginx?.stop();
    opts.onNginx?.(undefined);
    await app.close();
    // why: the log is off once this statement ends, so it does not log itself.
    opts.db.sql('SET GLOBAL slow_query_log = 0; SET GLOBAL long_query_time = 10;');
    if (nginx) rmSync(join(opts.outDir, `nginx-${opts.label}`), { recursive: true, force: true });
  }
}
