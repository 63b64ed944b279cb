import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Route } from '../../../src/core/model';
import { CpuAttribution } from '../../../src/core/profile/cpuAttribution';
import { FoldedReader } from '../../../src/core/profile/profileReaders';
import { cpuCell, cpuLensesForFile, cpuLensTitle, cpuOfEndpoint, msPerRequest, sharePct } from '../../../src/extension/profile/profileRows';

const at = (line: number) => ({ start: { line, character: 0 }, end: { line: line + 5, character: 1 } });
const routes: Route[] = [
  { method: 'GET', pattern: '/posts/{id}', framework: 'chi', file: 'go/main.go', range: at(60), handler: { name: 'getPost', file: 'go/main.go', range: at(121) } },
  { method: 'ANY', pattern: '/', framework: 'net/http', file: 'go/main.go', range: at(61), handler: { name: 'getIndex', file: 'go/main.go', range: at(106) } },
];

function profile() {
  const cpu = new CpuAttribution(routes);
  const r = new FoldedReader(cpu, 100);
  r.line('runtime.goexit;main.getPost;encoding/json.Marshal 600');
  r.line('runtime.goexit;main.getIndex 5');
  return cpu.report();
}

void test('CPU column and lens: shares, ms per request from the access log, the handler line', () => {
  const p = profile();
  const post = cpuOfEndpoint(p, 'GET', '/posts/{id}')!;
  assert.equal(cpuCell(post), 'CPU 99 %');
  assert.equal(cpuCell(cpuOfEndpoint(p, 'POST', '/')!), 'CPU 0.8 %', 'an ANY route takes every method');
  assert.equal(cpuOfEndpoint(p, 'POST', '/posts/{id}'), undefined);
  assert.equal(cpuLensTitle(post, 300), 'CPU 99 % · 20 ms/req');
  assert.equal(cpuLensTitle(post, undefined), 'CPU 99 %');
  assert.deepEqual([msPerRequest(1.234), msPerRequest(0.0412), msPerRequest(12.6)], ['1.2 ms/req', '0.04 ms/req', '13 ms/req']);
  assert.equal(sharePct(0.045), '4.5 %');
  const lenses = cpuLensesForFile('go/main.go', p, [{ method: 'GET', uri: '/posts/{id}', kind: 'route', count: 300 }, { method: 'GET', uri: '/posts/{id}', kind: 'regex', count: 7 }]);
  assert.deepEqual(lenses.map((l) => [l.line, l.title]), [[121, 'CPU 99 % · 20 ms/req'], [106, 'CPU 0.8 %']]);
  assert.deepEqual(cpuLensesForFile('other.go', p, undefined), []);
  assert.deepEqual(cpuLensesForFile('go/main.go', undefined, undefined), []);
});
