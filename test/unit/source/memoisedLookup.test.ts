import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Language } from '../../../src/core/model';
import { detectNPlusOne } from '../../../src/core/analysis/nPlusOne';
import { readApp } from '../../support/readApp';

// A helper keeps what it read in a long-lived map: it first copies the map's entry into a name, returns early
// when that name holds something, and stores the row it read under the same key. A loop over posts calls it, so
// the read runs once per distinct user, not once per post. The copy may sit in the `if`'s own initializer (Go) or
// in a statement before it (under a lock, or with a `get`).
const USER = 'SELECT * FROM users WHERE id = ?';

const APPS: { name: string; lang: Language; file: string; memoised: boolean; app: string }[] = [
  { name: 'go: the lookup in the if\'s initializer', lang: 'go', file: 'main.go', memoised: true, app: `package main
var userCache = map[int64]User{}
func user(id int64) User {
	if u, ok := userCache[id]; ok {
		return u
	}
	u := User{}
	db.Get(&u, "${USER}", id)
	userCache[id] = u
	return u
}
func posts(w http.ResponseWriter, r *http.Request) {
	ps := []Post{}
	db.Select(&ps, "SELECT * FROM posts")
	for _, p := range ps {
		user(p.UserID)
	}
}
` },
  { name: 'go: the lookup under a lock, before the if', lang: 'go', file: 'main.go', memoised: true, app: `package main
var userCache = map[int64]User{}
func user(id int64) User {
	mu.RLock()
	u, ok := userCache[id]
	mu.RUnlock()
	if ok {
		return u
	}
	db.Get(&u, "${USER}", id)
	mu.Lock()
	userCache[id] = u
	mu.Unlock()
	return u
}
func posts(w http.ResponseWriter, r *http.Request) {
	ps := []Post{}
	db.Select(&ps, "SELECT * FROM posts")
	for _, p := range ps {
		user(p.UserID)
	}
}
` },
  { name: 'go: a map filled after the read, never looked up, keeps nothing from the loop', lang: 'go', file: 'main.go', memoised: false, app: `package main
var seen = map[int64]User{}
func user(id int64) User {
	u := User{}
	if err := db.Get(&u, "${USER}", id); err != nil {
		return u
	}
	seen[id] = u
	return u
}
func posts(w http.ResponseWriter, r *http.Request) {
	ps := []Post{}
	db.Select(&ps, "SELECT * FROM posts")
	for _, p := range ps {
		user(p.UserID)
	}
}
` },
  { name: 'python: the lookup with get, before the if', lang: 'python', file: 'app.py', memoised: true, app: `
USER_CACHE = {}
def user(user_id):
    u = USER_CACHE.get(user_id)
    if u is not None:
        return u
    cur.execute("${USER.replace('?', '%s')}", (user_id,))
    u = cur.fetchone()
    USER_CACHE[user_id] = u
    return u

def posts():
    cur.execute("SELECT * FROM posts")
    for p in cur.fetchall():
        user(p["user_id"])
` },
  { name: 'ruby: the lookup, then return if found', lang: 'ruby', file: 'app.rb', memoised: true, app: `
USER_CACHE = {}
def user(id)
  u = USER_CACHE[id]
  return u if u
  u = db.xquery('${USER}', id).first
  USER_CACHE[id] = u
  u
end

get '/posts' do
  db.xquery('SELECT * FROM posts').each do |p|
    user(p[:user_id])
  end
end
` },
  { name: 'javascript: the lookup, then return if found', lang: 'javascript', file: 'app.js', memoised: true, app: `
const userCache = {};
async function user(id) {
  const u = userCache[id];
  if (u) {
    return u;
  }
  const [rows] = await db.query('${USER}', [id]);
  userCache[id] = rows[0];
  return rows[0];
}
app.get('/posts', async (req, res) => {
  const [posts] = await db.query('SELECT * FROM posts');
  for (const p of posts) {
    await user(p.user_id);
  }
});
` },
  { name: 'perl: the lookup, then return if found', lang: 'perl', file: 'app.psgi', memoised: true, app: `
my %USER_CACHE;
sub user {
    my ($id) = @_;
    my $u = $USER_CACHE{$id};
    return $u if $u;
    $u = $dbh->selectrow_hashref('${USER}', undef, $id);
    $USER_CACHE{$id} = $u;
    return $u;
}
sub posts {
    my $posts = $dbh->selectall_arrayref('SELECT * FROM posts', { Slice => {} });
    for my $p (@$posts) {
        user($p->{user_id});
    }
}
` },
  { name: 'perl: return the kept entry if it exists', lang: 'perl', file: 'app.psgi', memoised: true, app: `
my %USER_CACHE;
sub user {
    my ($id) = @_;
    return $USER_CACHE{$id} if exists $USER_CACHE{$id};
    my $u = $dbh->selectrow_hashref('${USER}', undef, $id);
    $USER_CACHE{$id} = $u;
    return $u;
}
sub posts {
    my $posts = $dbh->selectall_arrayref('SELECT * FROM posts', { Slice => {} });
    for my $p (@$posts) {
        user($p->{user_id});
    }
}
` },
  { name: 'go: a guard on the key alone, before a map filled after the read, keeps nothing', lang: 'go', file: 'main.go', memoised: false, app: `package main
var seen = map[int64]User{}
func user(id int64) User {
	u := User{}
	if id == 0 {
		return u
	}
	db.Get(&u, "${USER}", id)
	seen[id] = u
	return u
}
func posts(w http.ResponseWriter, r *http.Request) {
	ps := []Post{}
	db.Select(&ps, "SELECT * FROM posts")
	for _, p := range ps {
		user(p.UserID)
	}
}
` },
  { name: 'perl: a guard on the key alone, before a hash filled after the read, keeps nothing', lang: 'perl', file: 'app.psgi', memoised: false, app: `
my %SEEN;
sub user {
    my ($id) = @_;
    return undef unless $id;
    my $u = $dbh->selectrow_hashref('${USER}', undef, $id);
    $SEEN{$id} = $u;
    return $u;
}
sub posts {
    my $posts = $dbh->selectall_arrayref('SELECT * FROM posts', { Slice => {} });
    for my $p (@$posts) {
        user($p->{user_id});
    }
}
` },
];

for (const c of APPS) {
  void test(c.name, async () => {
    const facts = await readApp(c.file, c.app, c.lang);
    assert.deepEqual(facts.errors, []);
    assert.ok(facts.sites.some((s) => s.sql.startsWith('SELECT * FROM users')), 'the users statement is found');
    const perPost = detectNPlusOne([facts]).some((f) => f.data.innerSql.startsWith('SELECT * FROM users') && f.severity !== 'hint');
    assert.equal(perPost, !c.memoised, c.memoised ? 'the read is memoised' : 'the read runs once per post');
  });
}
