// Benchmark of the Perl lexer/extractor alone (no file I/O).
//   node bench/perl.mjs [--files 10000]
// Extracts N generated Kossy-style handler files (~2 KB each) and large files (the same
// handlers concatenated, 0.7 to 5 MB, to show the cost stays linear) and prints files/s and MB/s in CPU time of this process.
import * as esbuild from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1] : dflt; };
const N = Number(arg('--files', '10000'));

const tmp = mkdtempSync(join(tmpdir(), 'qi-perl-bench-'));
const outfile = join(tmp, 'extractPerl.cjs');
await esbuild.build({ entryPoints: [join(root, 'src/core/source/lang/perl/extractPerl.ts')], bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'warning' });
const { extractPerl } = createRequire(import.meta.url)(outfile);
rmSync(tmp, { recursive: true, force: true });

const file = (i) => `package App::Handler${i % 50};
use strict;
use warnings;
use constant USER_SQL${i} => 'SELECT * FROM users WHERE id = ?';

=pod

Handler ${i}: SELECT * FROM nothing in documentation

=cut

sub items_for {
    my ($self, $user_id) = @_;
    return $self->dbh->select_all('SELECT * FROM items WHERE owner_id = ? ORDER BY id DESC LIMIT 20', $user_id);
}

get '/api/items/${i}' => sub {
    my ($self, $c) = @_;
    my $items = $self->items_for($c->req->param('id'));
    for my $item (@$items) {
        $item->{user} = $self->dbh->select_row(USER_SQL${i}, $item->{user_id});
        $self->dbh->query(q{UPDATE items SET views = views + 1 WHERE id = ?}, $item->{id});
    }
    my $sql = "SELECT COUNT(*) FROM items_${i} WHERE owner_id = ?";
    $sql .= ' AND deleted = 0' if $c->req->param('live');
    my $count = $self->dbh->select_one($sql, $c->req->param('id'));
    my $rows = $self->dbh->select_all(<<~SQL, $c->req->param('id'));
        SELECT i.id, i.name, u.account_name
        FROM items i JOIN users u ON u.id = i.user_id
        WHERE i.owner_id = ?
        SQL
    my @names = map { $_->{name} =~ s/^\\s+|\\s+$//gr } grep { $_->{id} % 2 == 0 } @$rows;
    my $ratio = $count / 2; # not a regex
    $c->render_json({ items => $items, count => $count, names => \\@names, ratio => $ratio, msg => "Select an item (${i})" });
};

1;
`;

const files = Array.from({ length: N }, (_, i) => file(i));
const bytes = files.reduce((n, t) => n + Buffer.byteLength(t), 0);
for (let i = 0; i < 200; i++) extractPerl('warm.pm', files[i % files.length]);

let sites = 0;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < N; i++) sites += extractPerl(`lib/App/H${i}.pm`, files[i]).sites.length;
const cpu = process.cpuUsage(c0).user / 1000;
const wall = performance.now() - t0;
console.log(`perl: ${N} files, ${(bytes / 1e6).toFixed(1)} MB, ${sites} sites: ${(N / (cpu / 1000)).toFixed(0)} files/s, ${(bytes / 1e6 / (cpu / 1000)).toFixed(1)} MB/s (CPU ${cpu.toFixed(0)} ms, wall ${wall.toFixed(0)} ms)`);

for (const k of [500, 2000, 4000]) {
  const big = files.slice(0, k).join('\n');
  const c1 = process.cpuUsage();
  const r = extractPerl('big.pm', big);
  const cpuBig = process.cpuUsage(c1).user / 1000;
  console.log(`perl: one ${(big.length / 1e6).toFixed(1)} MB file, ${r.sites.length} sites, ${r.calls.length} calls: ${(big.length / 1e6 / (cpuBig / 1000)).toFixed(1)} MB/s (CPU ${cpuBig.toFixed(0)} ms)`);
}
