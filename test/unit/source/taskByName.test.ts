import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { extractFacts } from '../../../src/core/source/readFacts';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { fsGrammarSource } from '../../../src/node/grammars';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';

// A loop over rows hands a helper by name to what runs it as a task (`pool.submit(count, id)`, `Thread(target=…)`,
// errgroup's `g.Go(count)`): each task still sends the helper's statement once, so it runs once per row.
const parsers = new ParserSet(fsGrammarSource());
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
    await parsers.loadFor(new Set([c.lang]));
    const facts = extractFacts(c.file, c.app, c.lang, parsers, { routes: false });
    assert.deepEqual(facts.errors, []);
    const found = detectNPlusOne([facts]).filter((f) => f.data.innerSql.startsWith('SELECT COUNT(*) FROM slots'));
    assert.deepEqual(found.map((f) => f.severity), ['error'], 'the statement of the helper runs once per row');
  });
}

void test('python: a name handed to a task that is no function of the file calls nothing', async () => {
  await parsers.loadFor(new Set(['python'] as Language[]));
  const app = `
def doctors():
    cur.execute("SELECT id FROM doctors")
    for d in cur.fetchall():
        pool.submit(d, 1)
    cur.execute("${COUNT.replace('?', '%s')}", (1,))
`;
  const facts = extractFacts('app.py', app, 'python', parsers, { routes: false });
  assert.deepEqual(detectNPlusOne([facts]).filter((f) => f.severity !== 'hint'), []);
});
