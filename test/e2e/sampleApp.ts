/** A throw-away copy of test/fixtures/sample-app for one e2e test file (tests may edit it; the fixture stays as is). */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from '../support/paths';

export function copySampleApp(): { dir: string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), 'qi-e2e-ws-'));
  const dir = join(root, 'sample-app');
  cpSync(join(FIXTURES, 'sample-app'), dir, { recursive: true });
  return { dir, remove: () => rmSync(root, { recursive: true, force: true }) };
}
