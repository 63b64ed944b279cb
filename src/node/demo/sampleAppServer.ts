/**
 * The sample app (test/fixtures/sample-app, a Go app that is never compiled here) served by Node:
 * the same routes and the same control flow as its handlers — N+1 loops included — running the very
 * SQL found in its source by Query Insight's own scanner, against a real database. So the slow log
 * it causes maps back to the app's statements and the access log to its routes.
 */
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createPool, type Pool, type RowDataPacket } from 'mysql2/promise';
import type { SqlSite } from '../../core/model';
import { ParserSet } from '../../core/source/lang/treeSitter/treeSitter';
import { FactsCache } from '../../core/workspace';
import { fsGrammarSource } from '../grammars';

/** The app's handler file, relative to the app folder. */
export const SAMPLE_MAIN = 'webapp/go/main.go';
const POSTS_PER_PAGE = 20;

export interface SampleAppOptions {
  appDir: string;
  socket: string;
  user: string;
  database: string;
  /** Without nginx in front, the server writes its own LTSV access log here (alp's labels). */
  accessLog?: string;
  /** Files the app serves itself (path → content), as without nginx in front. */
  staticFiles?: Record<string, string>;
}

export interface SampleAppServer {
  port: number;
  close(): Promise<void>;
}

type Statements = Record<'commentCount' | 'comments' | 'user' | 'postUser' | 'indexPosts' | 'post' | 'insertComment'
  | 'accountUser' | 'accountPosts' | 'accountCommentCount', string>;

/** The app's SQL by role, read from its source; fails with the statement it could not find. */
export async function sampleAppStatements(appDir: string): Promise<Statements> {
  const text = await readFile(join(appDir, SAMPLE_MAIN), 'utf8');
  const facts = await new FactsCache(new ParserSet(fsGrammarSource())).update(SAMPLE_MAIN, text, 'go');
  const sites: SqlSite[] = facts?.sites ?? [];
  const find = (fn: string, re: RegExp, nth = 0): string => {
    const hits = sites.filter((s) => s.function === fn && re.test(s.sql));
    if (!hits[nth]) throw new Error(`${SAMPLE_MAIN}: no statement matching ${re} in ${fn}() (the sample app changed?)`);
    return hits[nth].sql;
  };
  return {
    commentCount: find('makePosts', /COUNT\(\*\).*`comments`/),
    comments: find('makePosts', /SELECT \* FROM `comments` WHERE `post_id`/),
    user: find('makePosts', /FROM `users` WHERE `id`/, 0),
    postUser: find('makePosts', /FROM `users` WHERE `id`/, 1),
    indexPosts: find('getIndex', /FROM `posts` ORDER BY/),
    post: find('getPost', /FROM `posts` WHERE `id`/),
    insertComment: find('postComment', /INSERT INTO comments/),
    accountUser: find('getAccountName', /FROM `users` WHERE `account_name`/),
    accountPosts: find('getAccountName', /FROM `posts` WHERE `user_id`/),
    accountCommentCount: find('getAccountName', /COUNT\(\*\).*`comments`/),
  };
}

type Row = RowDataPacket & Record<string, unknown>;

class App {
  constructor(private readonly pool: Pool, private readonly sql: Statements, private readonly staticFiles: Record<string, string>) {}

  private async rows(sql: string, params: unknown[]): Promise<Row[]> {
    // why: query (text protocol), not execute: the statement reaches the server, and its slow log,
    // with the values in place, as from an app with client-side interpolation.
    const [rows] = await this.pool.query<Row[]>(sql, params);
    return rows;
  }

  /** makePosts: per post its comment count, comments, each comment's user and the post's user (N+1). */
  private async makePosts(results: Row[], allComments: boolean): Promise<Row[]> {
    const posts: Row[] = [];
    for (const p of results) {
      p.commentCount = (await this.rows(this.sql.commentCount, [p.id]))[0]?.count;
      // why: the Go handler appends " LIMIT 3" to the statement held in `query` (query += …).
      const comments = await this.rows(this.sql.comments + (allComments ? '' : ' LIMIT 3'), [p.id]);
      for (const c of comments) c.user = (await this.rows(this.sql.user, [c.user_id]))[0];
      p.comments = comments;
      p.user = (await this.rows(this.sql.postUser, [p.user_id]))[0];
      if ((p.user as Row | undefined)?.del_flg === 0) posts.push(p);
      if (posts.length >= POSTS_PER_PAGE) break;
    }
    return posts;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const path = url.pathname;
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && Object.hasOwn(this.staticFiles, path)) return send(res, 200, this.staticFiles[path]);
    if (req.method === 'GET' && path === '/') {
      const posts = await this.makePosts(await this.rows(this.sql.indexPosts, []), false);
      return send(res, 200, `${posts.length} posts`);
    }
    if (req.method === 'GET' && (m = /^\/posts\/([^/]+)$/.exec(path))) {
      const posts = await this.makePosts(await this.rows(this.sql.post, [Number(m[1]) || 0]), true);
      return posts.length ? send(res, 200, `post ${String(posts[0].id)}`) : send(res, 404, 'not found');
    }
    if (req.method === 'POST' && path === '/comment') {
      const form = new URLSearchParams(await body(req));
      const postId = Number(form.get('post_id')) || 0;
      await this.rows(this.sql.insertComment, [postId, 1, form.get('comment') ?? '']);
      res.writeHead(302, { location: `/posts/${postId}` });
      return void res.end();
    }
    if (req.method === 'GET' && (m = /^\/@([^/]+)$/.exec(path))) {
      const user = (await this.rows(this.sql.accountUser, [decodeURIComponent(m[1])]))[0];
      if (!user) return send(res, 404, 'not found');
      const results = await this.rows(this.sql.accountPosts, [user.id]);
      const count = (await this.rows(this.sql.accountCommentCount, [user.id]))[0]?.count;
      const posts = await this.makePosts(results, false);
      return send(res, 200, `${String(user.account_name)}: ${posts.length} posts, ${String(count)} comments`);
    }
    return send(res, 404, 'not found');
  }
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** One LTSV line with alp's labels (the layout of docs/nginx-log-formats.md), for runs without nginx. */
function ltsvLine(req: IncomingMessage, res: ServerResponse, seconds: number, reqBytes: number): string {
  const time = new Date().toISOString();
  const fields: [string, string | number][] = [
    ['time', time], ['host', req.socket.remoteAddress ?? '-'], ['forwardedfor', '-'],
    ['req', `${req.method} ${req.url} HTTP/${req.httpVersion}`], ['method', req.method ?? '-'], ['uri', req.url ?? '/'],
    ['status', res.statusCode], ['size', Number(res.getHeader('content-length') ?? 0)], ['reqsize', reqBytes],
    ['referer', '-'], ['ua', String(req.headers['user-agent'] ?? '-')], ['reqtime', seconds.toFixed(3)],
    ['apptime', seconds.toFixed(3)], ['vhost', String(req.headers.host ?? '-')],
  ];
  return fields.map(([k, v]) => `${k}:${v}`).join('\t') + '\n';
}

/** Starts the app on a free loopback port with a small connection pool to the database. */
export async function startSampleAppServer(opts: SampleAppOptions): Promise<SampleAppServer> {
  const statements = await sampleAppStatements(opts.appDir);
  const pool = createPool({ socketPath: opts.socket, user: opts.user, database: opts.database, connectionLimit: 4, dateStrings: true });
  const app = new App(pool, statements, opts.staticFiles ?? {});
  const server: Server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    let reqBytes = 0;
    req.on('data', (c: Buffer) => { reqBytes += c.length; });
    if (opts.accessLog) {
      const file = opts.accessLog;
      res.on('finish', () => appendFileSync(file, ltsvLine(req, res, Number(process.hrtime.bigint() - started) / 1e9, reqBytes)));
    }
    app.handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, err instanceof Error ? err.message : String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', () => resolve()); });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await pool.end();
    },
  };
}
