/** `query-insight --help`: one line per command, every summary starting in the same column, the longest name included. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { usage } from '../../../src/cli/main';
import { COMMANDS } from '../../../src/cli/commands';

void test('--help lists every command with its summary in one column (server-stats too)', async () => {
  const lines = (await usage()).split('\n');
  const rows = lines.slice(lines.indexOf('commands:') + 1).filter((l) => /^ {2}\S/.test(l));
  assert.deepEqual(rows.map((l) => l.trim().split(/\s+/)[0]), Object.keys(COMMANDS));
  const starts = rows.map((l) => /^ {2}\S+\s+/.exec(l)![0].length);
  assert.ok(starts.every((s) => s === starts[0]), `summaries start at ${starts.join(', ')}:\n${rows.join('\n')}`);
  const serverStats = rows.find((l) => l.includes('server-stats'))!;
  assert.match(serverStats, /^ {2}server-stats {2}\S/, 'at least two spaces after the longest name');
});
