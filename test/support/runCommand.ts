/** Runs a CLI command in-process with captured stdout/stderr (no environment unless given), for tests of the commands. */
import { PassThrough } from 'node:stream';
import type { Command } from '../../src/cli/command';

export async function runCommand(command: Command, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  out.on('data', (c: Buffer) => o.push(c));
  err.on('data', (c: Buffer) => e.push(c));
  const code = await command.run(args, { stdout: out, stderr: err, env, cwd });
  return { code, out: Buffer.concat(o).toString('utf8'), err: Buffer.concat(e).toString('utf8') };
}
