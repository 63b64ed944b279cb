import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { readApp } from '../../support/readApp';

// A loop over rows hands a helper by name to what runs it as a task (`pool.submit(count, id)`, `Thread(target=…)`,
// errgroup's `g.Go(count)`): each task still sends the helper's statement once, so it runs once per row.
const COUNT = 'SELECT COUNT(*) FROM slots WHERE doctor_id = ?';

const APPS: { name: string; lang: Language; file: string; app: string }[] = [
  { name: 'python: pool.submit(helper, arg) in a comprehension', lang: 'python', file: 'app.py', app: `
def slot_count(doctor_id):
    cur.execute("${COUNT.replace('?', '%s')}", (doctor_id,))
    return cur.fetchone()

def doctors():
    cur.execute("SELECT id FROM doctors")
    rows = cur.fetchall()
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(slot_count, d["id"]) for d in rows]
` },
  { name: 'python: Thread(target=helper) in a for loop', lang: 'python', file: 'app.py', app: `
def slot_count(doctor_id):
    cur.execute("${COUNT.replace('?', '%s')}", (doctor_id,))

def doctors():
    cur.execute("SELECT id FROM doctors")
    for d in cur.fetchall():
        Thread(target=slot_count, args=(d["id"],)).start()
` },
  { name: 'python: run_in_executor(None, helper, arg)', lang: 'python', file: 'app.py', app: `
def slot_count(doctor_id):
    cur.execute("${COUNT.replace('?', '%s')}", (doctor_id,))

async def doctors():
    cur.execute("SELECT id FROM doctors")
    for d in cur.fetchall():
        await loop.run_in_executor(None, slot_count, d["id"])
` },
];

for (const c of APPS) {
  void test(c.name, async () => {
    const facts = await readApp(c.file, c.app, c.lang);
    assert.deepEqual(facts.errors, []);
    const found = detectNPlusOne([facts]).filter((f) => f.data.innerSql.startsWith('SELECT COUNT(*) FROM slots'));
    assert.deepEqual(found.map((f) => f.severity), ['error'], 'the statement of the helper runs once per row');
  });
}

void test('python: a name handed to a task that is no function of the file calls nothing', async () => {
  const app = `
def doctors():
    cur.execute("SELECT id FROM doctors")
    for d in cur.fetchall():
        pool.submit(d, 1)
    cur.execute("${COUNT.replace('?', '%s')}", (1,))
`;
  const facts = await readApp('app.py', app, 'python');
  assert.deepEqual(detectNPlusOne([facts]).filter((f) => f.severity !== 'hint'), []);
});
