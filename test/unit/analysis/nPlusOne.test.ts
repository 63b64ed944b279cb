import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CallSite, FileFacts, FunctionDef, Language, LoopInfo, Range, SqlSite } from '../../../src/core/model';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { isSmallConstantCollection, identifiersOf } from '../../../src/core/analysis/nPlusOneSyntax';
import { ParserSet } from '../../../src/core/source/lang/treeSitter/treeSitter';
import { extractFacts } from '../../../src/core/source/readFacts';
import { fsGrammarSource } from '../../../src/node/grammars';

// Hand-written facts: lines are 0-based as in the model; `r(a, b)` spans lines a..b.
const r = (a: number, b = a, c0 = 0, c1 = 60): Range => ({ start: { line: a, character: c0 }, end: { line: b, character: c1 } });
const loop = (a: number, b: number, iterable?: string, kind = 'for'): LoopInfo => ({ kind, range: r(a, b), iterable });
const fn = (name: string, a: number, b: number, owner?: string): FunctionDef => ({ name, owner, range: r(a, b), nameRange: r(a, a, 5, 5 + name.length) });
const call = (name: string, line: number, loops: LoopInfo[] = [], extra: Partial<CallSite> = {}): CallSite => ({ name, range: r(line, line, 4, 40), loops, ...extra });
function site(file: string, line: number, sql: string, loops: LoopInfo[] = [], extra: Partial<SqlSite> = {}): SqlSite {
  return { file, language: 'go', range: r(line, line, 10, 50), literalRanges: [r(line, line, 10, 50)], sql, placeholders: sql.includes('?') ? ['?'] : [], dynamic: false, loops, ...extra };
}
function facts(file: string, parts: Partial<FileFacts>, language: Language = 'go'): FileFacts {
  return { file, language, functions: [], calls: [], routes: [], errors: [], ...parts, sites: (parts.sites ?? []).map((s) => ({ ...s, file, language })) };
}
const lines = (fs: ReturnType<typeof detectNPlusOne>) => fs.map((f) => `${f.file}:${f.range.start.line + 1}@${f.data.loopFile}:${f.data.loopLine}`);

void test('a statement inside a loop body is reported at the statement, with the loop as related location', () => {
  const l = loop(10, 14, 'ids');
  const [f, ...rest] = detectNPlusOne([facts('app.go', {
    functions: [fn('handler', 5, 20)],
    sites: [site('app.go', 12, 'SELECT * FROM users WHERE id = ?', [l], { call: 'db.Get' })],
    calls: [call('Get', 12, [l])],
  })]);
  assert.equal(rest.length, 0);
  assert.equal(f.code, 'n-plus-one');
  assert.equal(f.severity, 'warning');
  assert.equal(f.range.start.line, 12);
  assert.deepEqual([f.data.loopFile, f.data.loopLine, f.data.path.length], ['app.go', 11, 0]);
  assert.deepEqual(f.related?.[0], { file: 'app.go', range: l.range, message: 'for loop over `ids`: the statement runs once per iteration' });
  assert.match(f.message, /SELECT \* FROM users WHERE id = \?.*line 11/);
});

void test('follows calls by name one, two and three levels deep and reports at the loop with the call path', () => {
  const l = loop(3, 6, 'posts');
  const ws = [
    facts('handler.go', {
      functions: [fn('list', 1, 10)],
      calls: [call('render', 4, [l])],
    }),
    facts('render.go', {
      functions: [fn('render', 1, 5), fn('author', 7, 10), fn('loadUser', 12, 16)],
      calls: [call('author', 3), call('loadUser', 8)],
      sites: [site('render.go', 14, 'SELECT name FROM users WHERE id = ?', [], { call: 'db.Get' })],
    }),
  ];
  const fs = detectNPlusOne(ws);
  assert.deepEqual(lines(fs), ['render.go:15@handler.go:4']);
  assert.deepEqual(fs[0].data.path.map((s) => `${s.name}@${s.file}:${s.line}`), ['render@handler.go:5', 'author@render.go:4', 'loadUser@render.go:9']);
  assert.deepEqual(fs[0].related?.map((x) => x.message), ['for loop over `posts`: the statement runs once per iteration', 'calls render()', 'calls author()', 'calls loadUser()']);
  assert.match(fs[0].message, /via render\(\) → author\(\) → loadUser\(\)/);
  // maxDepth bounds the walk (2 is the floor).
  assert.equal(detectNPlusOne(ws, { maxDepth: 2 }).length, 0);
});

void test('a closure assigned to a variable and called in the loop is followed', () => {
  const l = loop(8, 10, 'items', 'range');
  const fs = detectNPlusOne([facts('a.go', {
    functions: [fn('handler', 1, 12), fn('fetch', 2, 5)],
    sites: [site('a.go', 3, 'SELECT * FROM stock WHERE item_id = ?', [], { call: 'db.Get' })],
    calls: [call('Get', 3), call('fetch', 9, [l])],
  })]);
  assert.deepEqual(lines(fs), ['a.go:4@a.go:9']);
});

void test('methods resolve on the caller\'s own class first; an ambiguous name elsewhere resolves to nothing', () => {
  const l = loop(3, 5, 'rows');
  const ws = [
    facts('a.py', {
      functions: [fn('index', 1, 8, 'App'), fn('user', 10, 12, 'App')],
      calls: [call('user', 4, [l], { receiver: 'self' }), call('load', 6, [loop(6, 7, 'xs')])],
      sites: [site('a.py', 11, 'SELECT * FROM users WHERE id = %s', [], { call: 'cur.execute' })],
    }, 'python'),
    facts('b.py', {
      functions: [fn('user', 1, 3, 'Other')],
      sites: [site('b.py', 2, 'SELECT * FROM others WHERE id = %s', [], { call: 'cur.execute' })],
    }, 'python'),
    facts('x/c.py', { functions: [fn('load', 1, 3)], sites: [site('x/c.py', 2, 'SELECT 1 FROM t WHERE a = %s')] }, 'python'),
    facts('y/d.py', { functions: [fn('load', 1, 3)], sites: [site('y/d.py', 2, 'SELECT 1 FROM t WHERE a = %s')] }, 'python'),
  ];
  assert.deepEqual(lines(detectNPlusOne(ws)), ['a.py:12@a.py:4']);
});

void test('a Go method called through its receiver variable resolves to the same type', () => {
  const l = loop(3, 5, 'posts', 'range');
  const fs = detectNPlusOne([facts('h.go', {
    functions: [fn('getPosts', 1, 8, 'Handler'), fn('getUser', 10, 13, 'Handler'), fn('getUser', 15, 18, 'Cache')],
    calls: [call('getUser', 4, [l], { receiver: 'h' })],
    sites: [site('h.go', 11, 'SELECT * FROM users WHERE id = ?'), site('h.go', 16, 'SELECT * FROM cache WHERE k = ?')],
  })]);
  assert.deepEqual(lines(fs), ['h.go:12@h.go:4']);
});

void test('a loop over the rows of another query raises the severity and carries the outer query and its estimate', () => {
  const l = loop(5, 9, 'posts', 'range');
  const outer = site('a.go', 3, 'SELECT * FROM posts ORDER BY id DESC LIMIT 50', [], { call: 'db.Select', resultVar: 'posts' });
  const ws = [facts('a.go', {
    functions: [fn('index', 1, 12)],
    sites: [outer, site('a.go', 7, 'SELECT name FROM users WHERE id = ?', [l], { call: 'db.Get' })],
    calls: [call('Select', 3), call('Get', 7, [l])],
  })];
  const [f] = detectNPlusOne(ws, { estimatedRows: (s) => (s.sql.includes('posts') ? 50 : undefined) });
  assert.equal(f.severity, 'error');
  assert.equal(f.data.source, 'query-rows');
  assert.equal(f.data.outer?.line, 4);
  assert.equal(f.data.estimatedIterations, 50);
  assert.match(f.message, /rows of "SELECT \* FROM posts.*about 50 iterations/);
  assert.ok(f.related?.some((x) => x.message.includes('rows of this query')));
});

void test('the outer query named in the message is shortened before a dynamic marker, never inside one', () => {
  const l = loop(5, 9, 'shelves', 'range');
  const outer = site('a.go', 3, 'SELECT id FROM books WHERE shelf_id IN (/*?dynamic*/) ORDER BY id', [], { call: 'db.Select', resultVar: 'shelves' });
  const [f] = detectNPlusOne([facts('a.go', {
    functions: [fn('index', 1, 12)],
    sites: [outer, site('a.go', 7, 'SELECT name FROM shelves WHERE id = ?', [l], { call: 'db.Get' })],
    calls: [call('Select', 3), call('Get', 7, [l])],
  })]);
  assert.match(f.message, /rows of "SELECT id FROM books WHERE shelf_id IN \(…" \(line 4\)/);
});

void test('the outer query is the one run once: not a lookup run per pass of an earlier loop, and the one whose result is the iterable first', () => {
  // cs := SELECT competitions; for c in cs { ps := SELECT score per c; pss = append(pss, ps) }; for ps in pss { SELECT competition by id }
  const perComp = loop(5, 9, 'cs', 'range');
  const overPss = loop(11, 14, 'pss', 'range');
  overPss.from = { names: ['pss', 'ps', 'cs'], values: [] };
  const [f] = detectNPlusOne([facts('a.go', {
    functions: [fn('player', 1, 16)],
    sites: [
      site('a.go', 3, 'SELECT * FROM competition WHERE tenant_id = ?', [], { call: 'db.Select', resultVar: 'cs' }),
      site('a.go', 7, 'SELECT * FROM score WHERE competition_id = ? LIMIT 1', [perComp], { call: 'db.Get', resultVar: 'ps' }),
      site('a.go', 12, 'SELECT title FROM competition WHERE id = ?', [overPss], { call: 'db.Get' }),
    ],
    calls: [call('Select', 3), call('Get', 7, [perComp]), call('Get', 12, [overPss])],
  })]).filter((x) => x.data.loopLine === 12);
  assert.equal(f.data.outer?.line, 4);
  assert.match(f.message, /rows of "SELECT \* FROM competition WHERE tenant_id = \?"/);
  // xs = if … { q.fetch_all() } else { tagged = SELECT …; for t in tagged { xs.push(SELECT … by id) } }; for x in xs { … }
  const perTag = loop(6, 7, 'tagged');
  const overXs = loop(10, 12, 'xs');
  overXs.from = { names: ['xs', 'tagged', 'x'], values: [r(2, 8)] };
  const [g] = detectNPlusOne([facts('a.rs', {
    functions: [fn('search', 1, 14)],
    sites: [
      site('a.rs', 3, 'SELECT * FROM posts ORDER BY id DESC', [], { call: 'sqlx::query_as', callRange: r(3) }),
      site('a.rs', 5, 'SELECT * FROM post_tags WHERE tag_id IN (?)', [], { call: 'qb.build_query_as', callRange: r(5), resultVar: 'tagged' }),
      site('a.rs', 7, 'SELECT * FROM posts WHERE id = ?', [perTag], { call: 'sqlx::query_as', callRange: r(7), resultVar: 'x' }),
      site('a.rs', 11, 'SELECT name FROM users WHERE id = ?', [overXs], { call: 'sqlx::query_as', callRange: r(11) }),
    ],
    calls: [call('query_as', 3), call('build_query_as', 5), call('query_as', 7, [perTag]), call('query_as', 11, [overXs])],
  }, 'rust')]).filter((x) => x.data.loopLine === 11);
  assert.equal(g.data.outer?.sql, 'SELECT * FROM posts ORDER BY id DESC');
});

void test('a statement in the loop header is the outer query, not an N+1', () => {
  // The extractors leave the iterable out of the loop (it runs once), so the header's statement has no loops.
  const l = loop(3, 6, 'db.query("SELECT id FROM posts LIMIT 10")');
  const fs = detectNPlusOne([facts('a.rb', {
    functions: [fn('index', 1, 8)],
    sites: [
      site('a.rb', 3, 'SELECT id FROM posts LIMIT 10', [], { call: 'db.query', callRange: r(3, 3, 4, 40) }),
      site('a.rb', 4, 'SELECT * FROM comments WHERE post_id = ?', [l], { call: 'db.query', callRange: r(4, 4, 4, 40) }),
    ],
    calls: [call('query', 3, []), call('query', 4, [l])],
  }, 'ruby')]);
  assert.deepEqual(lines(fs), ['a.rb:5@a.rb:4']);
  assert.equal(fs[0].data.source, 'query-rows');
});

void test('nested loops report the innermost loop and list the enclosing one', () => {
  const outerLoop = loop(2, 10, 'users');
  const innerLoop = loop(4, 8, 'days');
  const [f] = detectNPlusOne([facts('a.js', {
    functions: [fn('report', 1, 12)],
    sites: [site('a.js', 6, 'SELECT COUNT(*) FROM visits WHERE user_id = ? AND day = ?', [outerLoop, innerLoop], { call: 'db.query' })],
    calls: [call('query', 6, [outerLoop, innerLoop])],
  }, 'javascript')]);
  assert.equal(f.data.loopLine, 5);
  assert.equal(f.data.loopDepth, 2);
  assert.ok(f.related?.some((x) => x.range.start.line === 2 && /enclosing/.test(x.message)));
});

void test('a small constant collection lowers the severity to a hint', () => {
  const l = loop(2, 4, '[]string{"asc", "desc"}', 'range');
  const [f] = detectNPlusOne([facts('a.go', {
    functions: [fn('warm', 1, 6)],
    sites: [site('a.go', 3, 'SELECT id FROM items ORDER BY id LIMIT 1', [l], { call: 'db.Get' })],
    calls: [call('Get', 3, [l])],
  })]);
  assert.equal(f.severity, 'hint');
  assert.equal(f.data.source, 'small-constant');
});

void test('statements before or after the loop, and functions never called in a loop, are not reported', () => {
  const l = loop(4, 6, 'xs');
  assert.deepEqual(detectNPlusOne([facts('a.go', {
    functions: [fn('h', 1, 10), fn('unused', 12, 14), fn('helper', 16, 18)],
    sites: [site('a.go', 2, 'SELECT * FROM a WHERE x = ?', [], { call: 'db.Get' }), site('a.go', 8, 'SELECT * FROM b WHERE x = ?', [], { call: 'db.Get' }),
      site('a.go', 13, 'SELECT * FROM c WHERE x = ?'), site('a.go', 17, 'SELECT * FROM d WHERE x = ?')],
    calls: [call('Get', 2), call('Get', 8), call('helper', 9), call('Println', 5, [l])],
  })]), []);
});

void test('a batch statement built in the loop and executed after it is not reported; one built before and run in the loop is', () => {
  const l = loop(3, 6, 'tags');
  const l2 = loop(12, 14, 'ids');
  const fs = detectNPlusOne([facts('a.go', {
    functions: [fn('save', 1, 9), fn('load', 10, 16)],
    sites: [
      site('a.go', 4, 'INSERT INTO post_tags (post_id, tag) VALUES (?, ?)', [l], { call: 'db.Exec' }),
      site('a.go', 11, 'SELECT * FROM users WHERE id = ?', [], { call: 'db.Get' }),
    ],
    calls: [call('Exec', 8), call('Get', 13, [l2])],
  })]);
  assert.deepEqual(lines(fs), ['a.go:12@a.go:13']);
});

void test('an INSERT … VALUES literal in a loop that flows into no call is a batch being built, not run; a call-less SELECT still counts', () => {
  const l = loop(3, 6, 'tags');
  const fs = detectNPlusOne([facts('a.pl', {
    functions: [fn('save', 1, 9)],
    sites: [site('a.pl', 4, 'INSERT INTO post_tags (post_id, tag) VALUES (?, ?)', [l]), site('a.pl', 5, 'SELECT 1 FROM tags WHERE name = ?', [l])],
    calls: [call('do', 8, [], { receiver: '$dbh' })],
  }, 'perl')]);
  assert.deepEqual(lines(fs), ['a.pl:6@a.pl:4']);
});

void test('a prepared statement executed in a loop is reported', () => {
  const l = loop(4, 6, '@ids');
  const fs = detectNPlusOne([facts('a.pl', {
    functions: [fn('names', 1, 8)],
    sites: [site('a.pl', 2, 'SELECT name FROM users WHERE id = ?', [], { call: '$dbh->prepare', resultVar: '$sth' })],
    calls: [call('prepare', 2, [], { receiver: '$dbh' }), call('execute', 5, [l], { receiver: '$sth' })],
  }, 'perl')]);
  assert.deepEqual(lines(fs), ['a.pl:3@a.pl:5']);
});

void test('a task started once outside a loop is not reported; tasks started per element still are, marked concurrent', () => {
  const l = loop(2, 4, 'xs');
  const fs = detectNPlusOne([facts('a.go', {
    functions: [fn('h', 1, 12), fn('audit', 14, 16)],
    sites: [site('a.go', 8, 'INSERT INTO logs (msg) VALUES (?)', [], { call: 'db.Exec', detached: true }), site('a.go', 15, 'INSERT INTO audit (x) VALUES (?)', [], { call: 'db.Exec' })],
    calls: [call('Exec', 8, [], { detached: true }), call('audit', 3, [l], { detached: true }), call('Exec', 15)],
  })]);
  assert.deepEqual(lines(fs), ['a.go:16@a.go:3']);
  assert.equal(fs[0].data.concurrent, true);
  assert.match(fs[0].message, /concurrent task per element/);
});

void test('recursion terminates: mutual recursion without a loop reports nothing; a recursive walk inside a loop reports once', () => {
  const none = detectNPlusOne([facts('a.rb', {
    functions: [fn('a', 1, 4), fn('b', 6, 9)],
    sites: [site('a.rb', 2, 'SELECT parent_id FROM categories WHERE id = ?')],
    calls: [call('b', 3), call('a', 7)],
  }, 'ruby')]);
  assert.deepEqual(none, []);
  const l = loop(4, 6, 'children');
  const once = detectNPlusOne([facts('a.rb', {
    functions: [fn('walk', 1, 8)],
    sites: [site('a.rb', 2, 'SELECT id FROM comments WHERE parent_id = ?', [], { resultVar: 'children' })],
    calls: [call('walk', 5, [l])],
  }, 'ruby')]);
  assert.deepEqual(lines(once), ['a.rb:3@a.rb:5']);
  assert.equal(once[0].data.source, 'query-rows');
});

void test('recognises small constant collections across languages', () => {
  for (const t of ['[]string{"a", "b"}', '[2]int{1, 2}', "['a', 'b']", '("x", "y")', '%w[a b c]', 'qw(a b)', "array('a', 'b')", 'vec![1, 2]', '[1, 2].iter()', 'range(3)', '1..3', '0..=2', '(1..3)', '[:a, :b].each', '3']) {
    assert.equal(isSmallConstantCollection(t), true, t);
  }
  for (const t of ['posts', '[a, b]', 'range(100)', '1..100', '[1, 2, 3, 4, 5, 6]', 'rows.Next()', '@$rows', 'users.map(&:id)', '%w[a b c d e f]']) {
    assert.equal(isSmallConstantCollection(t), false, t);
  }
  assert.deepEqual(identifiersOf('@$rows'), ['rows']);
  assert.deepEqual(identifiersOf('posts[:10]'), ['posts']);
});

void test('the query a loop walks carries the LIMIT the code passes to it, so the estimate is its page, not a guess', async () => {
  const parsers = new ParserSet(fsGrammarSource());
  await parsers.loadFor(['go']);
  const text = `package m
const perPage = 30
func list(db *sqlx.DB, uid int64) {
	posts := []Post{}
	db.Select(&posts, "SELECT id, user_id FROM posts WHERE user_id = ? ORDER BY id DESC LIMIT ?", uid, perPage)
	for _, p := range posts {
		var n int
		db.Get(&n, "SELECT COUNT(*) FROM comments WHERE post_id = ?", p.ID)
	}
}
`;
  const [f] = detectNPlusOne([extractFacts('a.go', text, 'go', parsers)]);
  assert.ok(f?.data.outer, JSON.stringify(f?.data));
  assert.equal(f.data.outer.limit, 30);
});
