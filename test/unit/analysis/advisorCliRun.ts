/** Runs the `advise` command in-process for tests (unit and integration). */
import { PassThrough } from 'node:stream';
import { adviseCommand } from '../../../src/cli/commands/advise';
import { REPO_ROOT } from '../../support/paths';

/** Runs `query-insight advise` in-process and returns exit code, stdout and stderr. */
export async function runAdvise(args: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough(), stderr = new PassThrough();
  let out = '', err = '';
  stdout.on('data', (d) => { out += d; });
  stderr.on('data', (d) => { err += d; });
  const code = await adviseCommand.run(args, { stdout, stderr, env: {}, cwd: REPO_ROOT });
  return { code, out, err };
}

