import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExplainJsonText, repairJsonText } from '../../../src/core/plan/jsonText';
import { normalizeJson } from '../../../src/core/plan/normalizeJson';

// As MariaDB 10.11 prints it for WHERE name = 'D\'Angelo' OR name = 'a\\b' OR name = '日本語<TAB>'.
const MARIADB = `{
  "query_block": {
    "select_id": 1,
    "nested_loop": [
      {
        "table": {
          "table_name": "events",
          "access_type": "ALL",
          "rows": 97730,
          "filtered": 100,
          "attached_condition": "\`events\`.\`name\` = 'D\\'Angelo' or \`events\`.\`name\` = 'a\\\\\\\\b' or \`events\`.\`name\` = '日本語\t'"
        }
      }
    ]
  }
}`;

void test('MariaDB JSON with \\\' and raw control characters parses', () => {
  assert.throws(() => JSON.parse(MARIADB));
  const doc = parseExplainJsonText(MARIADB) as { query_block: { nested_loop: { table: { attached_condition: string } }[] } };
  assert.equal(doc.query_block.nested_loop[0].table.attached_condition, "`events`.`name` = 'D'Angelo' or `events`.`name` = 'a\\\\b' or `events`.`name` = '日本語\t'");
  const plan = normalizeJson(MARIADB, 'mariadb');
  assert.equal(plan.rows[0].table, 'events');
  assert.equal(plan.rows[0].rows, 97730);
});

void test('repair leaves valid JSON alone and keeps valid escapes', () => {
  const valid = '{"a":"x\\"y\\\\z\\n\\u00e9","b":[1,2]}';
  assert.equal(repairJsonText(valid), valid);
  assert.equal(repairJsonText('{"a":"\\0\\Z\\%"}'), '{"a":"0Z%"}');
  assert.equal(repairJsonText('{"a":"\\uZZZZ"}'), '{"a":"uZZZZ"}');
  assert.throws(() => parseExplainJsonText('not json'));
});
