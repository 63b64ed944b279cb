/** Extension-host runner for the report tests only (the `extensionTestsPath` contract; see test/e2e/exthost/index.ts). */
import { join } from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

export async function run(): Promise<void> {
  Mocha.reporters.Base.consoleLog = (...args: unknown[]) => console.log(format(...args));
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 60_000 });
  mocha.addFile(join(__dirname, 'report.exthost.js'));
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures ? reject(new Error(`${failures} report test(s) failed`)) : resolve()));
  });
}
