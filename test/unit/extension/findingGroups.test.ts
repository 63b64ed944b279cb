/** The Findings view's grouping and labels: by code, worst kind first, counts in the labels, duplicates once. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeTitle, entryLabels, groupFindings, groupsSignature, totalLabel, type FindingEntry } from '../../../src/extension/findings/findingGroups';

const e = (code: string, file: string, line: number, severity: FindingEntry['severity'] = 'warning', message = `${code} at ${file}:${line}`): FindingEntry =>
  ({ code, message, severity, uri: `file:///ws/${file}`, file, line, character: 4 });

void test('groups by code with counts and files in the labels; worst severity, then count, then code', () => {
  const groups = groupFindings([
    e('filesort', 'app/main.go', 40, 'info'),
    e('n-plus-one', 'app/main.go', 90),
    e('full-table-scan', 'app/main.go', 155),
    e('n-plus-one', 'app/user.go', 12),
    e('full-table-scan', 'app/post.go', 3, 'error'),
    e('n-plus-one', 'app/main.go', 20),
    e('temporary-table', 'app/main.go', 41, 'info'),
  ]);
  assert.deepEqual(groups.map((g) => g.label), ['full-table-scan (2)', 'n-plus-one (3)', 'filesort (1)', 'temporary-table (1)']);
  assert.deepEqual(groups.map((g) => g.severity), ['error', 'warning', 'info', 'info']);
  assert.equal(groups[0].description, 'Full table scan · 2 files');
  assert.equal(groups[1].description, 'N+1 query (a query inside a loop) · 2 files');
  assert.equal(groups[2].description, 'Filesort · 1 file');
  // inside a group: worst first, then file and line
  assert.deepEqual(groups[0].entries.map((x) => `${x.file}:${x.line}`), ['app/post.go:3', 'app/main.go:155']);
  assert.deepEqual(groups[1].entries.map((x) => `${x.file}:${x.line}`), ['app/main.go:20', 'app/main.go:90', 'app/user.go:12']);
  assert.equal(totalLabel(groups), '7 findings');
});

void test('the same finding reported twice for one place counts once; a diagnostic without code goes to "other"', () => {
  const groups = groupFindings([e('filesort', 'a.go', 1), e('filesort', 'a.go', 1), e('', 'a.go', 2)]);
  assert.deepEqual(groups.map((g) => g.label), ['filesort (1)', 'other (1)']);
  assert.equal(groups[1].description, 'Other · 1 file');
  assert.equal(totalLabel(groupFindings([e('x', 'a.go', 1)])), '1 finding');
  assert.equal(totalLabel([]), '');
  assert.deepEqual(groupFindings([]), []);
});

void test('entry labels: the message\'s first line and a 1-based file:line', () => {
  const x = e('full-table-scan', 'webapp/golang/app.go', 154, 'warning', 'full table scan of posts: reads ~100,000 rows\nno index on posts(user_id)');
  assert.deepEqual(entryLabels(x), { label: 'full table scan of posts: reads ~100,000 rows', description: 'webapp/golang/app.go:155' });
  assert.ok(entryLabels({ ...x, message: 'y'.repeat(500) }).label.length <= 200);
});

void test('titles of codes; the signature changes with what is shown and only then', () => {
  assert.equal(codeTitle('join-without-index'), 'Join without index');
  assert.equal(codeTitle('n-plus-one-suspected'), 'Suspected N+1 query');
  const a = groupFindings([e('filesort', 'a.go', 1), e('n-plus-one', 'b.go', 2)]);
  const b = groupFindings([e('n-plus-one', 'b.go', 2), e('filesort', 'a.go', 1)]);
  assert.equal(groupsSignature(a), groupsSignature(b));
  assert.notEqual(groupsSignature(a), groupsSignature(groupFindings([e('filesort', 'a.go', 1)])));
  assert.notEqual(groupsSignature(a), groupsSignature(groupFindings([e('filesort', 'a.go', 1, 'error'), e('n-plus-one', 'b.go', 2)])));
});
