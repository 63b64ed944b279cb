/** The host's validator of page messages: exact shapes accepted, everything else rejected with a reason. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validatePageMessage } from '../../../src/core/report/protocol';

void test('well-formed page messages are accepted as they are', () => {
  const good = [
    { type: 'ready' },
    { type: 'showRun', runId: 'lx3k9a2f-9c01be' },
    { type: 'compare', beforeId: 'a1', afterId: 'b_2.x' },
    { type: 'exportComparison', target: 'file' },
    { type: 'exportComparison', target: 'clipboard' },
    { type: 'showPlanAtCursor' },
    { type: 'measurePlan' },
  ];
  for (const m of good) assert.deepEqual(validatePageMessage(m), { ok: true, message: m });
});

void test('malformed messages are rejected with a reason', () => {
  const bad: [unknown, RegExp][] = [
    [null, /not an object/],
    ['ready', /not an object/],
    [[{ type: 'ready' }], /not an object/],
    [{}, /unknown message type/],
    [{ type: 'runCommand', command: 'workbench.action.terminal.new' }, /unknown message type "runCommand"/],
    [{ type: 'toString' }, /unknown message type/],
    [{ type: '__proto__' }, /unknown message type/],
    [{ type: 'ready', command: 'x' }, /unexpected field\(s\) command/],
    [{ type: 'showRun' }, /runId is not a run id/],
    [{ type: 'showRun', runId: 42 }, /runId/],
    [{ type: 'showRun', runId: '../../etc/passwd' }, /runId/],
    [{ type: 'showRun', runId: 'a'.repeat(101) }, /runId/],
    [{ type: 'showRun', runId: '' }, /runId/],
    [{ type: 'compare', beforeId: 'a' }, /beforeId\/afterId/],
    [{ type: 'compare', beforeId: 'a', afterId: 'a' }, /the same/],
    [{ type: 'exportComparison', target: '/tmp/x.md' }, /target must be/],
    [{ type: 'exportComparison' }, /target must be/],
  ];
  for (const [m, re] of bad) {
    const v = validatePageMessage(m);
    assert.equal(v.ok, false, JSON.stringify(m));
    if (!v.ok) assert.match(v.error, re);
  }
});
