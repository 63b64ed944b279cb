/**
 * Extension-host test runner (the `extensionTestsPath` contract): loaded inside VS Code's extension
 * host, runs every `*.exthost.js` beside it with mocha and rejects when one fails. Works the same
 * under code-server (test/e2e/support/extHost.ts) and desktop VS Code (@vscode/test-cli, .vscode-test.mjs).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

export async function run(): Promise<void> {
  // why: the web workbench mirrors the extension host's console without applying printf-style
  // formats, so the reporter's lines are formatted here.
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(format(...args));
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000 });
  for (const f of readdirSync(__dirname).filter((n) => n.endsWith('.exthost.js')).sort()) mocha.addFile(join(__dirname, f));
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} extension-host test(s) failed`)) : resolve()));
  });
}
