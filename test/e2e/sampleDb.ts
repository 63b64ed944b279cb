/**
 * A private MariaDB holding the sample app's database (`isupic`, 300k generated rows); the loading
 * lives in src/node/demo/sampleDatabase.ts, shared with `npm run demo`.
 */
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';
import type { MariaDbServer } from '../support/mariadb';
import { SAMPLE_DB, sampleConnectionSettings, startSampleDatabase } from '../../src/node/demo/sampleDatabase';

export { SAMPLE_DB };

export async function startSampleDb(args: string[] = [], opts: { performanceSchema?: boolean } = {}): Promise<MariaDbServer> {
  return startSampleDatabase(join(FIXTURES, 'sample-app'), { ...opts, args });
}

/** Settings that point the extension at the server's socket (root, no password). */
export function connectionSettings(db: MariaDbServer): Record<string, unknown> {
  return sampleConnectionSettings(db);
}
