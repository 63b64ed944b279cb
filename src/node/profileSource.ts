/**
 * Where a CPU profile comes from, and reading it into a CpuAttribution: a local file (`.pb.gz`,
 * folded stacks plain or gzip, `.cpuprofile`), an HTTP URL (`/debug/pprof/profile?seconds=30`),
 * a file on a box (`ssh://[USER@]HOST[:PORT]/PATH` or `HOST:/PATH`), or a URL fetched from a box
 * (`ssh://[USER@]HOST[:PORT]/http://127.0.0.1:6060/debug/pprof/profile?seconds=30`): the request
 * goes through the SSH session (a direct-tcpip channel), so the pprof port need not be open to us.
 *
 * Folded stacks are read as they stream, line by line; pprof and .cpuprofile are read whole (they
 * are a few MB at most). The kind is told from the first bytes, after gunzip.
 */
import { createReadStream } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { LogSourceError, parseLogSource, type LogSource } from '../core/logs/logSource';
import type { CpuAttribution } from '../core/profile/cpuAttribution';
import { FoldedReader, ProfileFormatError, readCpuProfile, readPprof, sniffProfile } from '../core/profile/profileReaders';
import type { SshOptions } from '../db/sshTunnel';

export type ProfileSource =
  | { kind: 'local'; path: string }
  | { kind: 'url'; url: string; via?: BoxAddress }
  | { kind: 'ssh'; box: BoxAddress; path: string };

export interface BoxAddress { host: string; user?: string; port?: number }

/** Reads one SOURCE argument; local paths are left as written (the caller resolves them). Throws LogSourceError. */
export function parseProfileSource(text: string): ProfileSource {
  if (/^https?:\/\//i.test(text)) return { kind: 'url', url: text };
  const via = /^(ssh:\/\/[^/]+)\/(https?:\/\/.*)$/i.exec(text);
  if (via) {
    const box = parseLogSource(`${via[1]}/x`);
    if (box.kind !== 'ssh') throw new LogSourceError(`"${text}" is not ssh://[USER@]HOST[:PORT]/http://…`);
    if (!/^http:/i.test(via[2])) throw new LogSourceError(`"${text}": through a box only http:// URLs are fetched (the box's own loopback)`);
    return { kind: 'url', url: via[2], via: address(box) };
  }
  const s: LogSource = parseLogSource(text);
  return s.kind === 'local' ? { kind: 'local', path: s.path } : { kind: 'ssh', box: address(s), path: s.path };
}

function address(s: Extract<LogSource, { kind: 'ssh' }>): BoxAddress {
  return { host: s.host, ...(s.user ? { user: s.user } : {}), ...(s.port !== undefined ? { port: s.port } : {}) };
}

/** The source as a person would write it again. */
export function describeProfileSource(s: ProfileSource): string {
  const box = (b: BoxAddress) => `${b.user ? `${b.user}@` : ''}${b.host}${b.port !== undefined ? `:${b.port}` : ''}`;
  if (s.kind === 'local') return s.path;
  if (s.kind === 'url') return s.via ? `ssh://${box(s.via)}/${s.url}` : s.url;
  return `ssh://${box(s.box)}${s.path}`;
}

export interface ProfileRead {
  source: string;
  format: 'folded' | 'pprof' | 'cpuprofile';
  gzip: boolean;
  bytes: number;
  samples: number;
  /** Folded stacks: lines read, and the malformed ones by reason. */
  lines?: number;
  malformed?: number;
  malformedByReason?: Record<string, number>;
  malformedExamples?: { line: number; reason: string }[];
}

export interface ReadProfileOptions {
  /** Sampling frequency of folded stacks (counts → seconds); default 100 (py-spy, rbspy). */
  hz?: number;
  /** The SSH login for a box. */
  login?: (box: BoxAddress) => Promise<SshOptions> | SshOptions;
  /** Milliseconds an HTTP fetch may take beyond the profile's own `seconds` (default 30 s). */
  httpSlackMs?: number;
  signal?: AbortSignal;
}

/** Reads a profile's bytes as they arrive into `into`. */
export async function readProfileStream(chunks: AsyncIterable<Uint8Array>, into: CpuAttribution, source: string, hz = 100): Promise<ProfileRead> {
  const it = chunks[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.length === 0) first = await it.next();
  const head = first.done ? new Uint8Array(0) : first.value;
  const gzip = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  async function* raw(): AsyncGenerator<Uint8Array> {
    if (!first.done) yield first.value;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  const data: AsyncIterable<Uint8Array> = gzip ? gunzipped(raw()) : raw();
  let bytes = 0;
  let kind: ProfileRead['format'] | undefined;
  let reader: FoldedReader | undefined;
  const whole: Buffer[] = [];
  let carry: Buffer | undefined;
  for await (const chunk of data) {
    let buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    bytes += buf.length;
    if (!kind) {
      kind = sniffProfile(buf);
      if (kind === 'folded') reader = new FoldedReader(into, hz);
    }
    if (!reader) { whole.push(buf); continue; }
    if (carry) { buf = Buffer.concat([carry, buf]); carry = undefined; }
    let start = 0;
    for (let nl = buf.indexOf(10, start); nl >= 0; nl = buf.indexOf(10, start)) {
      reader.line(buf.toString('utf8', start, nl > start && buf[nl - 1] === 13 ? nl - 1 : nl));
      start = nl + 1;
    }
    if (start < buf.length) carry = buf.subarray(start);
  }
  if (reader && carry?.length) reader.line(carry.toString('utf8'));
  if (!kind) throw new ProfileFormatError(`${source} is empty`);
  if (reader) {
    return {
      source, format: 'folded', gzip, bytes, samples: reader.samples, lines: reader.lines, malformed: reader.malformed,
      malformedByReason: reader.malformedByReason, malformedExamples: reader.malformedExamples,
    };
  }
  const all = Buffer.concat(whole);
  if (kind === 'cpuprofile') {
    let json: unknown;
    try {
      json = JSON.parse(all.toString('utf8'));
    } catch (err) {
      throw new ProfileFormatError(`${source} starts like a V8 .cpuprofile but is not JSON: ${(err as Error).message}`);
    }
    return { source, format: 'cpuprofile', gzip, bytes, samples: readCpuProfile(json, into).samples };
  }
  return { source, format: 'pprof', gzip, bytes, samples: readPprof(all, into).samples };
}

async function* gunzipped(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  const z = createGunzip();
  const feeding = (async () => {
    try {
      for await (const c of chunks) if (!z.write(c)) await new Promise((r) => z.once('drain', r));
      z.end();
    } catch (err) {
      z.destroy(err as Error);
    }
  })();
  try {
    for await (const out of z) yield out as Buffer;
  } catch (err) {
    throw new ProfileFormatError(`the gzip data is damaged: ${(err as Error).message}`);
  }
  await feeding;
}

/** Reads one source into `into`. Rejects with a message naming the source. */
export async function readProfileSource(s: ProfileSource, into: CpuAttribution, options: ReadProfileOptions = {}): Promise<ProfileRead> {
  const name = describeProfileSource(s);
  const hz = options.hz ?? 100;
  if (s.kind === 'local') return readProfileStream(createReadStream(s.path), into, name, hz);
  const login = options.login;
  if ((s.kind === 'ssh' || s.via) && !login) throw new Error(`${name}: no SSH login for the box`);
  // why: loaded only for a box, so a local read does not load ssh2.
  const { SshTunnel } = s.kind === 'ssh' || s.via ? await import('../db/sshTunnel') : { SshTunnel: undefined };
  const tunnel = SshTunnel && login ? new SshTunnel(await login(s.kind === 'ssh' ? s.box : s.via!)) : undefined;
  try {
    if (s.kind === 'ssh') {
      const ch = await tunnel!.exec(`cat -- '${s.path.replace(/'/g, `'\\''`)}'`);
      const errs: Buffer[] = [];
      ch.stderr.on('data', (d: Buffer) => { if (errs.length < 8) errs.push(d); });
      const exit = new Promise<number | undefined>((resolve) => ch.once('exit', (code: number | null) => resolve(code ?? undefined)));
      try {
        const read = await readProfileStream(ch as AsyncIterable<Uint8Array>, into, name, hz);
        const code = await exit;
        if (code) throw new Error(`${name}: ${Buffer.concat(errs).toString('utf8').trim() || `cat exited with ${code}`}`);
        return read;
      } catch (err) {
        const code = await Promise.race([exit, new Promise<undefined>((r) => setTimeout(() => r(undefined), 200))]);
        if (code) throw new Error(`${name}: ${Buffer.concat(errs).toString('utf8').trim() || `cat exited with ${code}`}`);
        throw err;
      }
    }
    const res = await httpGet(s.url, tunnel ? await forwardFor(tunnel, s.url) : undefined, options);
    return await readProfileStream(res, into, name, hz);
  } finally {
    await tunnel?.close();
  }
}

async function forwardFor(tunnel: { forwardTo(host: string, port: number): Promise<Duplex> }, url: string): Promise<Duplex> {
  const u = new URL(url);
  return tunnel.forwardTo(u.hostname.replace(/^\[|\]$/g, ''), Number(u.port || 80));
}

/** GET `url` (over `socket` when given); resolves with the response once its status is 200. */
function httpGet(url: string, socket: Duplex | undefined, options: ReadProfileOptions): Promise<IncomingMessage> {
  const u = new URL(url);
  const seconds = Number(u.searchParams.get('seconds') ?? 30);
  const timeout = (Number.isFinite(seconds) ? seconds * 1000 : 30_000) + (options.httpSlackMs ?? 30_000);
  const request = u.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(u, {
      method: 'GET', timeout, signal: options.signal,
      ...(socket ? { createConnection: () => socket as never } : {}),
    }, (res) => {
      if (res.statusCode !== 200) {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => { if (parts.length < 4) parts.push(d); });
        res.on('end', () => reject(new Error(`${url}: HTTP ${res.statusCode}${parts.length ? `: ${Buffer.concat(parts).toString('utf8').slice(0, 300).trim()}` : ''}`)));
        return;
      }
      resolve(res);
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer within ${Math.round(timeout / 1000)} s`)));
    req.on('error', (err) => reject(new Error(`${url}: ${err.message}`)));
    req.end();
  });
}
