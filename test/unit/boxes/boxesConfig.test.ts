/** The `queryInsight.boxes` setting read into remote log sources named after their box; bad entries reported and left out. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBoxes, parseSshTarget } from '../../../src/extension/boxes/boxesConfig';
import { hostSplitRow } from '../../../src/extension/boxes/hostSplit';
import { hostLabel } from '../../../src/core/logs/logSource';

void test('SSH targets as ssh takes them: alias, user@host, host:port, [v6]:port', () => {
  assert.deepEqual(parseSshTarget('isu1'), { host: 'isu1' });
  assert.deepEqual(parseSshTarget('isucon@192.168.0.11'), { host: '192.168.0.11', user: 'isucon' });
  assert.deepEqual(parseSshTarget(' isucon@isu2:2222 '), { host: 'isu2', user: 'isucon', port: 2222 });
  assert.deepEqual(parseSshTarget('root@[fe80::1]:22'), { host: 'fe80::1', user: 'root', port: 22 });
  for (const bad of ['', 'isu1:0', 'isu1:70000', 'a b', 'isu1:/var/log', '@isu1', 'ssh://isu1']) assert.equal(parseSshTarget(bad), undefined, bad);
});

void test('a three-server layout: each log becomes a source labelled with its box', () => {
  const { boxes, problems } = parseBoxes([
    { name: 'isu1', ssh: 'isucon@isu1', accessLog: '/var/log/nginx/access.log' },
    { name: 'isu2', ssh: 'isucon@isu2:2222', accessLog: '/var/log/nginx/access.log.1.gz' },
    { name: 'isu3', ssh: 'isu3', slowLog: '/var/log/mysql/mysql-slow.log' },
  ]);
  assert.deepEqual(problems, []);
  assert.deepEqual(boxes.map((b) => b.name), ['isu1', 'isu2', 'isu3']);
  assert.deepEqual(boxes[1].accessLog, { kind: 'ssh', host: 'isu2', user: 'isucon', port: 2222, path: '/var/log/nginx/access.log.1.gz', label: 'isu2' });
  assert.equal(boxes[2].accessLog, undefined);
  assert.deepEqual(boxes[2].slowLog, { kind: 'ssh', host: 'isu3', path: '/var/log/mysql/mysql-slow.log', label: 'isu3' });
  assert.equal(hostLabel(boxes[1].accessLog!), 'isu2', 'reports name the box, not the host and port');
});

void test('unusable entries are reported by name and left out; the usable ones are kept', () => {
  const { boxes, problems } = parseBoxes([
    { name: 'isu1', ssh: 'isu1', accessLog: 'logs/access.log', slowLog: '/var/log/mysql/slow.log' },
    { name: 'isu1', ssh: 'isu9', accessLog: '/a.log' },
    { name: 'my box', ssh: 'isu2', accessLog: '/a.log' },
    { name: 'isu4', ssh: 'isucon@', accessLog: '/a.log' },
    { name: 'isu5', ssh: 'isu5' },
    'isu6',
    { name: 'isu7', ssh: 'isu7', accessLog: 42 },
  ]);
  assert.deepEqual(boxes.map((b) => [b.name, !!b.accessLog, !!b.slowLog]), [['isu1', false, true]]);
  assert.equal(problems.length, 8);
  assert.match(problems[0], /^isu1: "accessLog" must be an absolute path/);
  assert.match(problems[1], /the name isu1 is used twice/);
  assert.match(problems[2], /"name" must be a short name/);
  assert.match(problems[3], /^isu4: "ssh" must be/);
  assert.match(problems[4], /^isu5: neither "accessLog" nor "slowLog"/);
  assert.match(problems[5], /boxes\[5\] is not an object/);
  assert.match(problems[6], /^isu7: "accessLog" must be/);
  assert.match(problems[7], /^isu7: neither/);
  assert.deepEqual(parseBoxes(undefined), { boxes: [], problems: [] });
  assert.match(parseBoxes({ isu1: 'x' }).problems[0], /not a list/);
});

void test('the per-box tooltip row: counts and shares, largest first, names escaped', () => {
  assert.equal(hostSplitRow('by box', { isu2: 800, isu1: 1200 }), '| by box | isu1 1,200 (60 %) · isu2 800 (40 %) |');
  assert.equal(hostSplitRow('by box', { 'a|b': 1 }), '| by box | a\\|b 1 (100 %) |');
  assert.equal(hostSplitRow('by box', undefined), undefined);
  assert.equal(hostSplitRow('by box', {}), undefined);
});
