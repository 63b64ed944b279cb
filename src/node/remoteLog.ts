/**
 * Reads log files on other boxes over SSH, streamed: one SSH session per box (user, host, port),
 * shared by every file read from it, and one `cat` (or `tail -c +N` from an offset) per read on an
 * exec channel. The bytes are split into lines and gunzipped here, as for a local file; nothing is
 * copied to disk. How to log in to a box (keys, agent, host-key check, ~/.ssh/config) is the
 * caller's `login` function, so the CLI and the extension apply their own rules.
 *
 * The sessions live on the SSH worker thread (ssh/sshWorker.ts) where its script was built, so
 * the packets are decrypted on another core than the one parsing the lines; elsewhere on this
 * thread (ssh/remoteCommand.ts).
 */
import { gunzipSync } from 'node:zlib';
import { describeLogSource, hostLabel, type LogSource } from '../core/logs/logSource';
import type { SshOptions } from '../db/sshTunnel';
import { LineReadError, readLineStream, readLines, type LineHandler, type ReadLinesOptions, type ReadLinesResult } from './lineReader';
import { isPiped, readPipedLines } from './pipedLog';
import { ThreadRunner, type CommandRunner, type RemoteCommand } from './ssh/remoteCommand';
import { sshWorkerScript, WorkerRunner } from './ssh/sshWorkerClient';

export type RemoteLogSource = Extract<LogSource, { kind: 'ssh' }>;

/** Turns a remote source into the options of the SSH login to its box. */
export type SshLogin = (source: RemoteLogSource) => SshOptions | Promise<SshOptions>;

/** A read that failed: which source, which host, and what was read before it failed. */
export class RemoteReadError extends Error {
  constructor(readonly source: LogSource, message: string, readonly partial: ReadLinesResult | undefined, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'RemoteReadError';
  }
}

/** Quotes one word for a POSIX shell on the box. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** What stat says of a remote file: size and inode (a new inode after rotation). */
export interface RemoteStat { size: number; inode: number }

export interface RemoteLogReaderOptions {
  /** Run the SSH sessions on a worker thread (default: whenever the worker's script is built beside this code). */
  worker?: boolean;
}

/** How long a `cat` started by head() waits for the read of the same file. */
const PARK_MS = 10_000;

/** A `cat` head() started: its iterator, and copies of the chunks head() took from it. */
interface Parked {
  running: RemoteCommand;
  it: AsyncIterator<Buffer>;
  start: Buffer[];
  timer: NodeJS.Timeout;
}

/** Sessions to the boxes, keyed by `user@host:port` as the login options resolve them. */
export class RemoteLogReader {
  private readonly runner: CommandRunner;
  private readonly parked = new Map<string, Parked>();
  /** Logins connect() started, by session key, until the first command on that session takes the outcome. */
  private readonly logins = new Map<string, Promise<void>>();

  constructor(private readonly login: SshLogin, options: RemoteLogReaderOptions = {}) {
    const script = options.worker === false ? undefined : sshWorkerScript();
    if (options.worker && !script) throw new Error('the SSH worker script (sshWorker.js) is not beside this code');
    this.runner = script ? new WorkerRunner(script) : new ThreadRunner();
  }

  /** True when the sessions run on the SSH worker thread. */
  get onWorker(): boolean { return this.runner instanceof WorkerRunner; }

  /**
   * Logs in to every box of `sources` at once, so that reading their logs one after another does
   * not wait for each login in turn (a login takes several round trips, and the box's shell start).
   * Resolves once every login has started: the login options are worked out one box after another,
   * so a passphrase is asked once and a host key shown once. A failure is not reported here; the
   * first command on that box gets it, without logging in again.
   */
  async connect(sources: readonly LogSource[]): Promise<void> {
    for (const s of sources) {
      if (s.kind !== 'ssh') continue;
      let login: { key: string; options: SshOptions };
      try {
        login = await this.loginFor(s);
      } catch {
        continue; // why: the read of this source asks again and reports it with the file
      }
      if (this.logins.has(login.key)) continue;
      const started = this.runner.connect(login.key, login.options);
      started.catch(() => undefined);
      this.logins.set(login.key, started);
    }
  }

  /**
   * Reads `source` from byte `offset` (0: the whole file) line by line into `onLine`. A gzip file is
   * decoded on the fly (from offset 0 only: a gzip stream cannot start in the middle). Rejects with
   * RemoteReadError naming the host and carrying the lines read when the file is missing, the command
   * fails or the connection drops part way.
   */
  async read(source: RemoteLogSource, onLine: LineHandler, options: ReadLinesOptions & { offset?: number; totalBytes?: number } = {}): Promise<ReadLinesResult> {
    const where = describeLogSource(source);
    const offset = options.offset ?? 0;
    const command = offset > 0 ? `tail -c +${offset + 1} -- ${shellQuote(source.path)}` : `cat -- ${shellQuote(source.path)}`;
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
    const running = (offset === 0 ? this.claim(where) : undefined) ?? await this.open(source, command, options.signal);
    // why: the reader checks the signal between chunks only; a stalled transfer must stop at once too.
    const stop = (): void => { running.destroy(); };
    options.signal?.addEventListener('abort', stop, { once: true });
    try {
      return await this.stream(source, where, running, onLine, options);
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Reads the complete lines in bytes [from, to) of a plain (not gzip) remote file: what a log
   * being watched got appended since the last read. A line still being written (no newline before
   * `to`) is left for the next read; `end` is the offset just after the last newline delivered,
   * where that read starts. Lines longer than `maxLineBytes` are skipped (reported, not delivered).
   */
  async readAppended(source: RemoteLogSource, from: number, to: number, onLine: LineHandler,
    options: { firstLineNo?: number; signal?: AbortSignal; maxLineBytes?: number; onLongLine?: (lineNo: number, length: number) => void } = {}): Promise<{ lines: number; end: number }> {
    if (to <= from) return { lines: 0, end: from };
    const maxLine = options.maxLineBytes ?? 1 << 20;
    // why: GNU dd reads exactly the range and exits with its own status (a pipe of tail and head
    // would report head's, and tail gets SIGPIPE whenever the file grew past `to`).
    const running = await this.open(source, `dd if=${shellQuote(source.path)} iflag=skip_bytes,count_bytes skip=${from} count=${to - from} bs=65536 status=none`, options.signal);
    const stop = (): void => { running.destroy(); };
    options.signal?.addEventListener('abort', stop, { once: true });
    let lineNo = options.firstLineNo ?? 0;
    let lines = 0;
    /** File offset of `carry`'s first byte (or of the next byte, when carry is empty). */
    let pos = from;
    /** Offset just after the last newline seen. */
    let consumed = from;
    let carry: Buffer = Buffer.alloc(0);
    /** Bytes of an over-long line already dropped (its end not seen yet). */
    let skipping = 0;
    try {
      for await (const data of running.stdout) {
        const buf = carry.length ? Buffer.concat([carry, data]) : data;
        let start = 0;
        for (let nl = buf.indexOf(10); nl >= 0; nl = buf.indexOf(10, start)) {
          lineNo++;
          lines++;
          const length = skipping + nl - start;
          if (skipping || length > maxLine) options.onLongLine?.(lineNo, length);
          else onLine(buf, start, nl > start && buf[nl - 1] === 13 ? nl - 1 : nl, lineNo);
          skipping = 0;
          start = nl + 1;
          consumed = pos + start;
        }
        if (buf.length - start > maxLine) {
          // why: bounded memory; the line's length is still counted when its newline comes.
          skipping += buf.length - start;
          carry = Buffer.alloc(0);
          pos += buf.length;
        } else {
          carry = Buffer.from(buf.subarray(start));
          pos += start;
        }
      }
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason ?? err;
      throw new RemoteReadError(source, `${hostLabel(source)}: reading ${describeLogSource(source)} from byte ${from} stopped after ${lines} lines: ${(err as Error).message}`, undefined, err);
    } finally {
      options.signal?.removeEventListener('abort', stop);
    }
    if (options.signal?.aborted) throw options.signal.reason ?? new Error('aborted');
    const { exit, stderr } = await running.ended;
    if (!exit) throw new RemoteReadError(source, `${hostLabel(source)}: the connection was lost while reading ${describeLogSource(source)} from byte ${from}`, undefined);
    if (exit.code !== 0) throw new RemoteReadError(source, `${hostLabel(source)}: cannot read ${source.path}: ${stderr.trim().split('\n').pop() || `exit status ${exit.code}`}`, undefined);
    return { lines, end: consumed };
  }

  private async stream(source: RemoteLogSource, where: string, running: RemoteCommand, onLine: LineHandler, options: ReadLinesOptions & { totalBytes?: number }): Promise<ReadLinesResult> {
    let result: ReadLinesResult;
    try {
      result = await readLineStream(running.stdout, onLine, { ...options, name: where });
    } catch (err) {
      running.destroy();
      const partial = err instanceof LineReadError ? err.partial : undefined;
      const why = err instanceof LineReadError ? err.message : String(err);
      throw new RemoteReadError(source, `${hostLabel(source)}: reading ${where} stopped after ${partial?.lines ?? 0} lines: ${why}`, partial, err);
    }
    if (options.signal?.aborted) {
      // why: a destroyed command ends its stdout early; that is the abort, not the end of the file.
      const reason: unknown = options.signal.reason ?? new Error('aborted');
      throw new RemoteReadError(source, `${hostLabel(source)}: reading ${where} stopped after ${result.lines} lines: ${reason instanceof Error ? reason.message : String(reason)}`, result, reason);
    }
    if (result.damaged && !result.damaged.truncated) {
      // why: corrupt gzip data ends the read before the file does (result.damaged says so); the rest is not wanted.
      running.destroy();
      return result;
    }
    const { exit, stderr } = await running.ended;
    if (!exit) {
      // why: the channel closed without an exit status: the session died while the file streamed.
      throw new RemoteReadError(source, `${hostLabel(source)}: the connection was lost while reading ${where}, after ${result.lines} lines`, result);
    }
    if (exit.code !== 0) {
      const reason = stderr.trim().split('\n').pop() || (exit.signal ? `killed by ${exit.signal}` : `exit status ${exit.code}`);
      throw new RemoteReadError(source, `${hostLabel(source)}: cannot read ${source.path}: ${reason}`, result);
    }
    return result;
  }

  /** Size and inode of a remote file (`stat -L`), for polling a log that grows or rotates. */
  async stat(source: RemoteLogSource): Promise<RemoteStat> {
    const out = (await this.run(source, `stat -L -c '%s %i' -- ${shellQuote(source.path)}`)).toString('utf8');
    const m = /^(\d+) (\d+)\s*$/.exec(out);
    if (!m) throw new RemoteReadError(source, `${hostLabel(source)}: stat of ${source.path} printed "${out.trim().slice(0, 80)}"`, undefined);
    return { size: Number(m[1]), inode: Number(m[2]) };
  }

  /**
   * The start of a remote file as text (gunzipped when it is gzip), at most `bytes` of it: enough to
   * tell what kind of log it is. The `cat` that reads it is kept for a read of the whole file that
   * follows within PARK_MS (what the CLI and the editor do next): one command on the box instead of
   * two, and every command costs a round trip and the start of the user's shell there (with a
   * version manager's init in ~/.bashrc, hundreds of ms).
   */
  async head(source: RemoteLogSource, bytes = 64 * 1024): Promise<string> {
    const where = describeLogSource(source);
    this.unpark(where);
    const running = await this.open(source, `cat -- ${shellQuote(source.path)}`, undefined);
    const it = running.stdout[Symbol.asyncIterator]();
    const start: Buffer[] = [];
    let got = 0;
    let ended = false;
    try {
      while (got < bytes) {
        const next = await it.next();
        if (next.done) { ended = true; break; }
        // why: a chunk's memory may go back to the sender once the next one is asked for.
        const copy = Buffer.from(next.value);
        start.push(copy);
        got += copy.length;
      }
    } catch (err) {
      running.destroy();
      throw new RemoteReadError(source, `${hostLabel(source)}: reading ${where} stopped: ${(err as Error).message}`, undefined, err);
    }
    if (ended) {
      const { exit, stderr } = await running.ended;
      if (!exit) throw new RemoteReadError(source, `${hostLabel(source)}: the connection was lost while reading ${where}`, undefined);
      if (exit.code !== 0) throw new RemoteReadError(source, `${hostLabel(source)}: cannot read ${source.path}: ${stderr.trim().split('\n').pop() || `exit status ${exit.code}`}`, undefined);
    }
    const timer = setTimeout(() => this.unpark(where), PARK_MS);
    timer.unref();
    // why: two heads of the same file at once (the file named twice) keep the later one; the other is closed.
    this.unpark(where);
    this.parked.set(where, { running, it, start, timer });
    let b = Buffer.concat(start).subarray(0, bytes);
    if (b[0] === 0x1f && b[1] === 0x8b) {
      // why: only the start of the stream is here; Z_SYNC_FLUSH accepts a cut-off gzip stream.
      try { b = gunzipSync(b, { finishFlush: 2 }); } catch { return ''; }
    }
    return b.toString('utf8');
  }

  /** Closes every session. */
  async close(): Promise<void> {
    this.logins.clear();
    for (const where of [...this.parked.keys()]) this.unpark(where);
    await this.runner.close();
  }

  /** Stops a `cat` that head() kept and no read took. */
  private unpark(where: string): void {
    const p = this.parked.get(where);
    if (!p) return;
    this.parked.delete(where);
    clearTimeout(p.timer);
    p.running.destroy();
  }

  /** The `cat` head() kept for this source, as a command whose stdout starts again at byte 0. */
  private claim(where: string): RemoteCommand | undefined {
    const p = this.parked.get(where);
    if (!p) return undefined;
    this.parked.delete(where);
    clearTimeout(p.timer);
    async function* again(): AsyncGenerator<Buffer> {
      yield* p!.start;
      for (;;) {
        const next = await p!.it.next();
        if (next.done) return;
        yield next.value;
      }
    }
    return { stdout: { [Symbol.asyncIterator]: again }, ended: p.running.ended, destroy: () => p.running.destroy() };
  }

  /** Starts `command` on the source's box; an abort while logging in or starting stops waiting at once. */
  private async open(source: RemoteLogSource, command: string, signal: AbortSignal | undefined): Promise<RemoteCommand> {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const starting = (async () => {
      const { key, options } = await this.loginFor(source);
      try {
        return await this.execOn(key, options, command);
      } catch (err) {
        throw new RemoteReadError(source, `${hostLabel(source)}: cannot read ${source.path}: ${(err as Error).message}`, undefined, err);
      }
    })();
    if (!signal) return starting;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason ?? new Error('aborted'));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([starting, aborted]);
    } catch (err) {
      // why: a channel that opens after the abort is closed as soon as it arrives.
      void starting.then((c) => c.destroy(), () => undefined);
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort!);
    }
  }

  /** The login options of the source's box and the session they key (the session logs in on its first command, and again after a drop). */
  private async loginFor(source: RemoteLogSource): Promise<{ key: string; options: SshOptions }> {
    let options: SshOptions;
    try {
      options = await this.login(source);
    } catch (err) {
      throw new RemoteReadError(source, `${hostLabel(source)}: ${(err as Error).message}`, undefined, err);
    }
    return { key: `${options.username}@${options.host}:${options.port ?? 22}`, options };
  }

  /** Starts `command` on session `key`, after the login connect() started for it (whose failure it reports instead of logging in again). */
  private async execOn(key: string, options: SshOptions, command: string): Promise<RemoteCommand> {
    const login = this.logins.get(key);
    if (login) {
      this.logins.delete(key);
      await login;
    }
    return this.runner.exec(key, options, command);
  }

  /** Runs a short command and returns its whole stdout. */
  private async run(source: RemoteLogSource, command: string): Promise<Buffer> {
    const { key, options } = await this.loginFor(source);
    let running: RemoteCommand;
    try {
      running = await this.execOn(key, options, command);
    } catch (err) {
      throw new RemoteReadError(source, `${hostLabel(source)}: ${(err as Error).message}`, undefined, err);
    }
    const parts: Buffer[] = [];
    for await (const part of running.stdout) parts.push(Buffer.from(part));
    const { exit, stderr } = await running.ended;
    const code = exit ? exit.code : null;
    if (code !== 0) throw new RemoteReadError(source, `${hostLabel(source)}: ${command.split(' ')[0]} ${source.path}: ${stderr.trim().split('\n').pop() || `exit status ${code}`}`, undefined);
    return Buffer.concat(parts);
  }
}

/**
 * Reads a log from wherever it is: a local file through readLines, a remote one through `remote`
 * (required for remote sources).
 */
export async function readLogSource(source: LogSource, onLine: LineHandler, options: ReadLinesOptions, remote: RemoteLogReader | undefined): Promise<ReadLinesResult> {
  if (source.kind === 'local') return isPiped(source.path) ? readPipedLines(source.path, onLine, options) : readLines(source.path, onLine, options);
  if (!remote) throw new RemoteReadError(source, `${describeLogSource(source)} is on another box, and no SSH login is set up here`, undefined);
  return remote.read(source, onLine, options);
}
