// @vscode/test-cli configuration: the same extension-host suite that test/e2e/extensionHost.test.ts
// runs inside code-server, for a machine with desktop VS Code (`npx @vscode/test-cli` downloads it).
//   node scripts/build.mjs --tests && npx vscode-test
// The suite files are the transpiled test/e2e/exthost/*.exthost.ts; the workspace is the sample app
// (the tests edit a file only in memory and revert it).
import { defineConfig } from '@vscode/test-cli';

export default defineConfig({
  label: 'exthost',
  files: 'out/test/e2e/exthost/*.exthost.js',
  workspaceFolder: './test/fixtures/sample-app',
  version: 'stable',
  extensionDevelopmentPath: '.',
  launchArgs: ['--disable-extensions', '--disable-workspace-trust'],
  mocha: { ui: 'tdd', timeout: 60_000, color: false },
});
