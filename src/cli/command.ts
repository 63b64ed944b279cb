/** The contract every CLI command implements. */
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
