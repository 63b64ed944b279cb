/** Entry point of the bundled CLI (dist/cli.js; each command is a bundle of its own in dist/cli/, see scripts/build.mjs). */
import { main } from './main';

// why: pipes like `query-insight scan . | head` close stdout early; that is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') process.exit(0); });
main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err: unknown) => {
  process.stderr.write(`query-insight: ${String(err)}\n`);
  process.exitCode = 1;
});
