/**
 * Seed logs for the log-reader fuzz test, written for it in the style of a contest app's logs: nginx
 * access logs in every layout the endpoint reader knows, and slow logs of three flavours (MySQL 8
 * with log_slow_extra, MariaDB with log_slow_verbosity, Percona Server 5.7), all from one seeded
 * random generator so a run is reproducible.
 */

/** A small deterministic generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

const ROUTES: [string, (r: Rand) => string][] = [
  ['GET', (r) => `/api/estate/${int(r, 1, 30000)}`],
  ['GET', (r) => `/api/chair/search?priceRangeId=${int(r, 0, 5)}&page=${int(r, 0, 9)}&perPage=25`],
  ['POST', (r) => `/api/chair/buy/${int(r, 1, 30000)}`],
  ['GET', () => '/api/recommended_estate'],
  ['GET', (r) => `/api/isu/${int(r, 1e7, 9e7).toString(16)}-aaaa-4bbb-8ccc-${int(r, 1e11, 9e11)}/graph?datetime=1700000000`],
  ['POST', () => '/initialize'],
  ['GET', (r) => `/images/${int(r, 1, 9999)}.png`],
  ['PUT', (r) => `/api/user/me/${int(r, 1, 500)}`],
  ['DELETE', (r) => `/api/livestream/${int(r, 1, 800)}/reaction`],
];
const UAS = ['isucandar', 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36', 'curl/8.4.0', 'Go-http-client/1.1'];
const STATUS = [200, 200, 200, 200, 201, 204, 302, 304, 400, 404, 499, 500, 502];

function request(r: Rand) {
  const [method, path] = pick(r, ROUTES);
  const reqtime = (int(r, 1, 3000) / 1000).toFixed(3);
  const upstream = path(r).startsWith('/images/') ? '-' : r() < 0.05 ? `${(int(r, 1, 900) / 1000).toFixed(3)}, ${(int(r, 1, 900) / 1000).toFixed(3)}` : (Number(reqtime) * 0.9).toFixed(3);
  return {
    method, uri: path(r), status: pick(r, STATUS), size: int(r, 0, 60000), reqsize: int(r, 80, 4000), reqtime, upstream,
    time: `25/Nov/2026:10:${String(int(r, 0, 59)).padStart(2, '0')}:${String(int(r, 0, 59)).padStart(2, '0')} +0900`,
    addr: `192.168.0.${int(r, 1, 254)}`, ua: pick(r, UAS),
  };
}

export type AccessSeedFormat = 'ltsv' | 'json' | 'combined' | 'combined-alp' | 'custom';

/** The nginx log_format of the `custom` seed. */
export const CUSTOM_LOG_FORMAT = '$remote_addr [$time_local] "$request_method $request_uri" $status $body_bytes_sent rt=$request_time ut=$upstream_response_time len=$request_length';

/** `n` access-log lines of one layout. */
export function accessSeed(format: AccessSeedFormat, n: number, r: Rand): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const q = request(r);
    switch (format) {
      case 'ltsv':
        out.push([`time:${q.time}`, `host:${q.addr}`, 'forwardedfor:-', `req:${q.method} ${q.uri} HTTP/1.1`, `method:${q.method}`, `uri:${q.uri}`, `status:${q.status}`,
          `size:${q.size}`, `reqsize:${q.reqsize}`, 'referer:-', `ua:${q.ua}`, `reqtime:${q.reqtime}`, `apptime:${q.upstream}`, 'vhost:isucon.example'].join('\t'));
        break;
      case 'json':
        out.push(JSON.stringify({ time: '2026-11-25T10:00:00+09:00', host: q.addr, method: q.method, uri: q.uri, status: String(q.status), body_bytes: String(q.size),
          request_length: String(q.reqsize), request_time: q.reqtime, response_time: q.upstream, ua: q.ua }));
        break;
      case 'combined':
        out.push(`${q.addr} - - [${q.time}] "${q.method} ${q.uri} HTTP/1.1" ${q.status} ${q.size} "-" "${q.ua}" ${q.reqtime} ${q.upstream}`);
        break;
      case 'combined-alp':
        out.push(`${q.addr} - - [${q.time}] "${q.method} ${q.uri} HTTP/1.1" ${q.status} ${q.size} "-" "${q.ua}" ${q.upstream} ${q.reqtime}`);
        break;
      case 'custom':
        out.push(`${q.addr} [${q.time}] "${q.method} ${q.uri}" ${q.status} ${q.size} rt=${q.reqtime} ut=${q.upstream} len=${q.reqsize}`);
        break;
    }
  }
  return out;
}

export type SlowFlavour = 'mysql8' | 'mariadb' | 'percona57';

const STATEMENTS = [
  (r: Rand) => `SELECT * FROM estate WHERE id = ${int(r, 1, 30000)}`,
  (r: Rand) => `SELECT id, name, price FROM chair WHERE price >= ${int(r, 0, 9000)} AND price < ${int(r, 9000, 20000)} ORDER BY popularity DESC, id ASC LIMIT 25 OFFSET ${int(r, 0, 200)}`,
  (r: Rand) => `UPDATE chair SET stock = stock - 1 WHERE id = ${int(r, 1, 30000)} AND stock > 0`,
  (r: Rand) => `INSERT INTO isu_condition (jia_isu_uuid, timestamp, is_sitting, condition, message) VALUES ('${int(r, 1e6, 9e6)}', '2026-11-25 10:00:00', 1, 'is_dirty=true,is_overweight=false', 'it''s ok\\n# Query_time: 999')`,
  (r: Rand) => `SELECT u.name, COUNT(*) FROM users u\nJOIN livestreams l ON l.user_id = u.id\nWHERE l.id IN (${int(r, 1, 99)}, ${int(r, 100, 199)})\nGROUP BY u.name`,
  () => 'COMMIT',
];

/** `n` slow-log entries of one flavour (several lines each). */
export function slowSeed(flavour: SlowFlavour, n: number, r: Rand): string[] {
  const out: string[] = [];
  if (flavour === 'mariadb') out.push('/usr/sbin/mariadbd, Version: 10.11.6-MariaDB-0+deb12u1-log (Debian 12). started with:', 'Tcp port: 3306  Unix socket: /run/mysqld/mysqld.sock', 'Time\t\t    Id Command\tArgument');
  let epoch = 1795000000;
  for (let i = 0; i < n; i++) {
    epoch += int(r, 0, 2);
    const qt = (int(r, 1, 5_000_000) / 1e6).toFixed(6);
    const lt = (int(r, 0, 2000) / 1e6).toFixed(6);
    const sent = int(r, 0, 100);
    const examined = sent + int(r, 0, 100000);
    const sql = pick(r, STATEMENTS)(r);
    const id = int(r, 5, 900);
    if (flavour === 'mysql8') {
      out.push(`# Time: 2026-11-25T01:${String(i % 60).padStart(2, '0')}:00.${String(int(r, 0, 999999)).padStart(6, '0')}Z`,
        `# User@Host: isucon[isucon] @ localhost [127.0.0.1]  Id: ${id}`,
        `# Query_time: ${qt}  Lock_time: ${lt} Rows_sent: ${sent}  Rows_examined: ${examined} Thread_id: ${id} Errno: 0 Killed: 0 Bytes_received: 0 Bytes_sent: ${int(r, 50, 9000)} Read_first: 0 Read_last: 0 Read_key: 1 Read_next: 0 Read_prev: 0 Read_rnd: 0 Read_rnd_next: ${examined} Sort_merge_passes: 0 Sort_range_count: 0 Sort_rows: 0 Sort_scan_count: 0 Created_tmp_disk_tables: 0 Created_tmp_tables: 0 Start: 2026-11-25T01:00:00.000000Z End: 2026-11-25T01:00:01.000000Z`);
      if (r() < 0.2) out.push('use isuumo;');
      out.push(`SET timestamp=${epoch};`, `${sql};`);
    } else if (flavour === 'mariadb') {
      if (r() < 0.5) out.push(`# Time: 261125 10:${String(i % 60).padStart(2, '0')}:00`);
      out.push(`# User@Host: isucon[isucon] @ localhost []`, `# Thread_id: ${id}  Schema: isuumo  QC_hit: No`,
        `# Query_time: ${qt}  Lock_time: ${lt}  Rows_sent: ${sent}  Rows_examined: ${examined}`, `# Rows_affected: 0  Bytes_sent: ${int(r, 50, 9000)}`);
      if (r() < 0.5) out.push('# Full_scan: Yes  Full_join: No  Tmp_table: No  Tmp_table_on_disk: No', '# Filesort: Yes  Filesort_on_disk: No  Merge_passes: 0  Priority_queue: No');
      out.push(`SET timestamp=${epoch};`, `${sql};`);
    } else {
      out.push(`# Time: 261125 10:${String(i % 60).padStart(2, '0')}:00`, `# User@Host: isucon[isucon] @ localhost []  Id: ${id}`,
        `# Schema: isucondition  Last_errno: 0  Killed: 0`,
        `# Query_time: ${qt}  Lock_time: ${lt}  Rows_sent: ${sent}  Rows_examined: ${examined}  Rows_affected: 0`,
        `# Bytes_sent: ${int(r, 50, 9000)}  Tmp_tables: 0  Tmp_disk_tables: 0  Tmp_table_sizes: 0`,
        `# QC_Hit: No  Full_scan: ${r() < 0.5 ? 'Yes' : 'No'}  Full_join: No  Tmp_table: No  Tmp_table_on_disk: No`,
        `SET timestamp=${epoch};`, `${sql};`);
    }
  }
  return out;
}

const JUNK = ['\t', '"', '{', '}', ':', ',', ' ', '-', '.', 'e', 'E', '9', '0', '[', ']', '#', ';', "'", '\\', '\r', '\u00e9', '\u0000', '=', '@', '<'];
const NUMBERS = ['1e309', '-1', '-0.5', '99999999999999999999', '90000', 'NaN', 'Infinity', '-', '', '0x1F', '1.2.3', '.', '1e', '0.1, 1e400', '5 : -'];

/**
 * Mutates lines in place of a copy: byte junk, numbers replaced by extremes, fields cut, doubled or
 * swapped, header-looking text inserted, a line cut short and glued to the next, rare long runs.
 * Returns the mutated text (newline-separated, the last line possibly without a newline).
 */
export function mutate(lines: readonly string[], r: Rand): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i];
    const k = r();
    if (k < 0.35) {
      const times = int(r, 1, 3);
      for (let t = 0; t < times; t++) l = mutateOne(l, r, lines);
    }
    if (r() < 0.02 && i + 1 < lines.length) {
      // cut short and glued to the next line
      out.push(l.slice(0, int(r, 0, l.length)) + lines[++i]);
      continue;
    }
    out.push(l);
  }
  return out.join('\n') + (r() < 0.5 ? '\n' : '');
}

function mutateOne(l: string, r: Rand, all: readonly string[]): string {
  const at = int(r, 0, l.length);
  switch (int(r, 0, 11)) {
    case 0: return l.slice(0, at) + pick(r, JUNK) + l.slice(at);
    case 1: return l.slice(0, at) + l.slice(Math.min(l.length, at + int(r, 1, 20)));
    case 2: return l.replace(/\d+(\.\d+)?/, () => pick(r, NUMBERS));
    case 3: { const nums = [...l.matchAll(/\d+(\.\d+)?/g)]; if (!nums.length) return l; const m = pick(r, nums); return l.slice(0, m.index) + pick(r, NUMBERS) + l.slice(m.index! + m[0].length); }
    case 4: return l.slice(0, at);
    case 5: return l.slice(0, at) + l.slice(at - Math.min(at, 30), at) + l.slice(at);
    case 6: return l.slice(0, at) + pick(r, ['# Query_time: 999  Lock_time: 0 Rows_sent: 1  Rows_examined: 1', '# User@Host: x[x] @ h []', 'time:', '{"uri":"/x"', '] "GET /', '\tmethod:PO99999999999999ST']) + l.slice(at);
    case 7: return pick(r, all);
    case 8: return '';
    case 9: return l.toLowerCase();
    case 10: return r() < 0.02 ? l.slice(0, at) + pick(r, ['9', 'a:', '"', ' ', '\t', '{', '1.']).repeat(int(r, 1000, 60000)) + l.slice(at) : l.replace(/ /g, '  ');
    default: return l.split('\t').reverse().join('\t');
  }
}

/** Lines in a text as a line reader sees them. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return text.endsWith('\n') ? n : n + 1;
}
