/**
 * The `query-insight` command line: a thin front end over src/core and src/db.
 * Each command lives in src/cli/commands/<name>.ts and exports a `Command`.
 */
import { UsageError } from './output';
import { COMMANDS, READS_LOG_RANGES } from './commands';
import { prestartForArgs } from '../node/rangeWorkerPool';

/** The list of commands, their summaries in one column however long the longest name. */
export async function usage(): Promise<string> {
  const lines = ['usage: query-insight <command> [options]', '', 'commands:'];
  const commands = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const width = Math.max(...commands.map((c) => c.name.length));
  for (const c of commands) lines.push(`  ${c.name.padEnd(width)}  ${c.summary}`);
  lines.push('', 'Run `query-insight <command> --help` for a command\'s options.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write((await usage()) + '\n');
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!load) {
    process.stderr.write(`query-insight: unknown command "${name}"\n\n${await usage()}\n`);
    return 2;
  }
  const kind = READS_LOG_RANGES.get(name);
  if (kind && !rest.includes('--help') && !rest.includes('-h')) prestartForArgs(kind, rest);
  const cmd = await load();
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(cmd.help + '\n');
    return 0;
  }
  try {
    return await cmd.run(rest, { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`query-insight ${name}: ${err.message}\n\n${cmd.help}\n`);
      return 2;
    }
    process.stderr.write(`query-insight ${name}: ${(err as Error).message ?? String(err)}\n`);
    return 1;
  }
}

declare const __QI_VERSION__: string | undefined;
const VERSION = typeof __QI_VERSION__ === 'string' ? __QI_VERSION__ : '0.1.0';
