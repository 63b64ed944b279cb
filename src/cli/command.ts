/** The contract every CLI command implements, and what commands share in reading their arguments. */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { UsageError } from './output';

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The full `--help` text. */
  help: string;
  /** Returns the exit code: 0 ok, 1 failure (or --fail-on threshold reached), 2 usage error. */
  run(args: string[], io: CommandIo): Promise<number>;
}

/**
 * The directory a command reads: its one operand (the working directory when none), as an absolute path.
 * Throws a usage error for a second operand, or a path that is not a directory.
 */
export async function directoryOperand(positionals: readonly string[], io: CommandIo): Promise<string> {
  if (positionals.length > 1) throw new UsageError(`one directory, please (got ${positionals.length})`);
  const root = resolve(io.cwd, positionals[0] ?? '.');
  if (!(await stat(root).catch(() => undefined))?.isDirectory()) throw new UsageError(`${root} is not a directory`);
  return root;
}
