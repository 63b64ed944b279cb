/** Entry point of the bundled CLI (dist/cli.js; each command is a bundle of its own in dist/cli/, see scripts/build.mjs). */
import { main } from './main';

// why: pipes like `query-insight scan . | head` close stdout early; that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') process.exit(0); });

/**
 * Ends the process once what was written to stdout and stderr is out. A command's run is over when
 * it returns: what is left behind (reading threads being torn down, their heaps freed) is not
 * waited for, which took 20–40 ms after the log commands' output.
 */
function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

main(process.argv.slice(2)).then(exitWhenFlushed, (err: unknown) => {
  process.stderr.write(`query-insight: ${String(err)}\n`);
  exitWhenFlushed(1);
});
