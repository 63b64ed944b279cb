import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachLine } from '../../../src/core/logs/lineSource';
import { SlowLogParser } from '../../../src/core/logs/slowLogParser';
import { SlowStatsCollector } from '../../../src/core/logs/slowStats';

function classes(text: string): Map<string, number> {
  const c = new SlowStatsCollector();
  const p = new SlowLogParser((e) => c.add(e));
  forEachLine(new TextEncoder().encode(text), (b, s, e, n) => p.line(b, s, e, n));
  p.end();
  return new Map(c.result().map((q) => [q.fingerprint, q.count]));
}

const entry = (sql: string, t = '0.000100') => [
  '# Time: 2024-05-01T10:00:00.000000Z', '# User@Host: isucon[isucon] @ localhost []  Id: 7',
  `# Query_time: ${t}  Lock_time: 0.000010 Rows_sent: 0  Rows_examined: 0`, 'SET timestamp=1714557600;', sql,
].join('\n');

void test('a slow log of executable-comment statements and ODKU upserts: one class per statement the server ran', () => {
  const log = [
    entry('/*!40101 SET NAMES utf8mb4 */;'),
    entry('/*!40101 SET NAMES utf8mb4 */;'),
    entry('/*!40103 SET TIME_ZONE=\'+00:00\' */;'),
    entry('INSERT INTO isu_condition (jia_isu_uuid, `condition`) VALUES (\'a\', \'x\'), (\'b\', \'y\') ON DUPLICATE KEY UPDATE `condition` = VALUES(`condition`);'),
    entry('INSERT INTO isu_condition (jia_isu_uuid, `condition`) VALUES (\'c\', \'z\') ON DUPLICATE KEY UPDATE `condition` = VALUES(`condition`);'),
    entry('INSERT INTO isu_condition (jia_isu_uuid, `condition`) VALUES (\'c\', \'z\') ON DUPLICATE KEY UPDATE jia_isu_uuid = VALUES(jia_isu_uuid);'),
    '',
  ].join('\n');
  const got = classes(log);
  assert.equal(got.get('set names utf8mb4'), 2);
  assert.equal(got.get('set time_zone = ?'), 1);
  assert.equal(got.get('insert into isu_condition(jia_isu_uuid, condition) values(?+) on duplicate key update condition = values(condition)'), 2);
  assert.equal(got.get('insert into isu_condition(jia_isu_uuid, condition) values(?+) on duplicate key update jia_isu_uuid = values(jia_isu_uuid)'), 1);
  assert.ok(!got.has(''), 'no class with an empty name');
  assert.equal(got.size, 4);
});
