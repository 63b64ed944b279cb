import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseStateFile, stateFileText } from '../../../src/core/workspaceStateFile';

void test('a state file reads back the values it was written with', () => {
  const values = new Map<string, unknown>([
    ['runs', [{ id: 'r1', score: 1234, commit: 'abc123', memo: 'index on posts(user_id)' }]],
    ['walkthrough.done', { explain: true }],
    ['quote"and\nnewline', 'ünïcode ✓'],
  ]);
  const back = parseStateFile(stateFileText(values));
  assert.deepEqual([...back.entries()], [...values.entries()]);
});

void test('an empty state file holds no values', () => {
  assert.equal(parseStateFile(stateFileText(new Map())).size, 0);
});

void test('text that is not a state file is refused with what is wrong', () => {
  const cases: [string, RegExp][] = [
    ['', /JSON/],
    ['{"format":"query-insight-state","version":1,"values":{', /JSON/],
    ['[]', /not a JSON object/],
    ['null', /not a JSON object/],
    ['{"version":1,"values":{}}', /"format" is not "query-insight-state"/],
    ['{"format":"query-insight-state","version":2,"values":{}}', /version 2 is not supported \(expected 1\)/],
    ['{"format":"query-insight-state","values":{}}', /version undefined is not supported/],
    ['{"format":"query-insight-state","version":1}', /"values" is not an object/],
    ['{"format":"query-insight-state","version":1,"values":[1]}', /"values" is not an object/],
  ];
  for (const [text, why] of cases) assert.throws(() => parseStateFile(text), why, JSON.stringify(text));
});
