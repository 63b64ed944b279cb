/** Paths for tests, which run transpiled from out/test/…; fixtures stay in the source tree. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json')) || dir.endsWith(join('out'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${start}`);
    dir = up;
  }
  return dir;
}

export const REPO_ROOT = findRoot(__dirname);
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');
