import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FileFacts, Range } from '../../../src/core/model';
import { nPlusOnePathText, nPlusOneReport } from '../../../src/core/analysis/nPlusOneReport';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';

const r = (a: number, c0 = 0, c1 = 40): Range => ({ start: { line: a, character: c0 }, end: { line: a, character: c1 } });

void test('records carry the statement and the loop as 1-based file:line, the call path, and sort errors first', () => {
  const loop = { kind: 'for', range: { start: { line: 9, character: 2 }, end: { line: 12, character: 3 } }, iterable: 'ids' };
  const facts: FileFacts[] = [
    { file: 'h/list.go', language: 'go', routes: [], errors: [], sites: [],
      functions: [{ name: 'list', range: { start: { line: 0, character: 0 }, end: { line: 20, character: 0 } }, nameRange: r(0) }],
      calls: [{ name: 'getUser', range: r(10, 4, 20), loops: [loop] }] },
    { file: 'db/users.go', language: 'go', routes: [], errors: [], calls: [],
      functions: [{ name: 'getUser', range: { start: { line: 2, character: 0 }, end: { line: 6, character: 1 } }, nameRange: r(2) }],
      sites: [{ file: 'db/users.go', language: 'go', range: r(3, 12, 50), literalRanges: [r(3, 12, 50)], sql: 'SELECT * FROM users WHERE id = ?', placeholders: ['?'], dynamic: false, loops: [] }] },
  ];
  const [rec, ...rest] = nPlusOneReport(facts);
  assert.equal(rest.length, 0);
  assert.deepEqual({ code: rec.code, file: rec.file, line: rec.line, column: rec.column, loopFile: rec.loopFile, loopLine: rec.loopLine, path: rec.path },
    { code: 'n-plus-one', file: 'db/users.go', line: 4, column: 13, loopFile: 'h/list.go', loopLine: 10, path: ['getUser@h/list.go:11'] });
  assert.equal(nPlusOnePathText(rec), 'for loop at h/list.go:10 over ids via getUser()');
  assert.deepEqual(JSON.parse(JSON.stringify(rec)), rec, 'plain JSON');
});

void test('related: false leaves out the related locations and nothing else of a finding (the records the CLI prints are the same)', () => {
  const loop = { kind: 'for', range: { start: { line: 9, character: 2 }, end: { line: 12, character: 3 } }, iterable: 'rows' };
  const facts: FileFacts[] = [
    { file: 'h/list.go', language: 'go', routes: [], errors: [], calls: [{ name: 'Query', receiver: 'db', range: r(11, 4, 60), loops: [loop] }],
      functions: [{ name: 'list', range: { start: { line: 0, character: 0 }, end: { line: 20, character: 0 } }, nameRange: r(0) }],
      sites: [
        { file: 'h/list.go', language: 'go', range: r(5, 12, 50), literalRanges: [r(5, 12, 50)], sql: 'SELECT id FROM posts', placeholders: [], dynamic: false, loops: [], resultVar: 'rows', call: 'db.Query' },
        { file: 'h/list.go', language: 'go', range: r(11, 12, 50), literalRanges: [r(11, 12, 50)], sql: 'SELECT * FROM users WHERE id = ?', placeholders: ['?'], dynamic: false, loops: [loop], call: 'db.Query', callRange: r(11, 4, 60) },
      ] },
  ];
  const full = detectNPlusOne(facts);
  const bare = detectNPlusOne(facts, { related: false });
  assert.ok(full.length >= 1);
  assert.equal(bare.length, full.length);
  assert.ok(full.some((f) => f.related && f.related.length >= 2), 'the loop and the query it walks');
  for (let i = 0; i < full.length; i++) {
    assert.equal(bare[i].related, undefined);
    assert.deepEqual({ ...bare[i], related: full[i].related }, full[i]);
  }
  assert.deepEqual(nPlusOneReport(facts), nPlusOneReport(facts, { related: true }));
});
