/**
 * The reading thread's side of the SSH worker (sshWorker.ts): a CommandRunner whose sessions live
 * on a worker thread. The worker is started on the first command and kept while the runner lives;
 * it holds the process open only while a command runs. Host keys the worker is shown are put to
 * the login's own verifier here (it may ask a person), and its answer goes back.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SshOptions } from '../../db/sshTunnel';
import type { CommandRunner, RemoteCommand, RemoteEnd } from './remoteCommand';
import { toWire, type FromWorker, type ToWorker, type WireError, type WireSshOptions } from './sshWorkerProtocol';

/**
 * The worker's script: beside this code (dist/sshWorker.js for the extension, dist/cli/sshWorker.js
 * for the CLI's command bundles, out/src/node/ssh/sshWorker.js for the tests), or undefined when the
 * build put none there.
 */
export function sshWorkerScript(): string | undefined {
  const path = join(__dirname, 'sshWorker.js');
  return existsSync(path) ? path : undefined;
}

/** An error as the worker reported it, with the same name, message and SSH failure kind. */
function rebuild(e: WireError): Error {
  const err = new Error(e.message) as Error & { kind?: string };
  err.name = e.name;
  if (e.kind) err.kind = e.kind;
  return err;
}

/** Bytes parsed before they are handed back to the worker (its ring is 4 MiB; it pauses the channel near full). */
const ACK_BYTES = 512 * 1024;

class WorkerCommand implements RemoteCommand {
  private readonly queue: Buffer[] = [];
  private wake: (() => void) | undefined;
  private done = false;
  private settle!: (end: RemoteEnd) => void;
  readonly ended = new Promise<RemoteEnd>((resolve) => { this.settle = resolve; });
  readonly stdout: AsyncIterable<Buffer> = { [Symbol.asyncIterator]: () => this.chunks() };

  constructor(private readonly id: number, private readonly runner: WorkerRunner, readonly ring: Buffer) {}

  push(chunk: Buffer): void {
    this.queue.push(chunk);
    this.wake?.();
  }

  finish(end: RemoteEnd): void {
    this.done = true;
    this.settle(end);
    this.wake?.();
  }

  destroy(): void {
    if (this.done) return;
    this.queue.length = 0;
    this.runner.drop(this.id);
    this.finish({ stderr: '' });
  }

  private async *chunks(): AsyncGenerator<Buffer> {
    // why: a chunk is done with once the reader asks for more (it has parsed it); the worker may then
    // write over it. One message per ACK_BYTES parsed rather than one per chunk (about 2,000 for
    // 292 MB): the parsing thread is the one a read waits for. All of it is acknowledged before
    // waiting, so the worker never waits for room the reader no longer needs.
    let unacked = 0;
    for (;;) {
      const chunk = this.queue.shift();
      if (chunk) {
        yield chunk;
        unacked += chunk.length;
        if (unacked >= ACK_BYTES) { this.runner.ack(this.id, unacked); unacked = 0; }
        continue;
      }
      if (unacked > 0) { this.runner.ack(this.id, unacked); unacked = 0; }
      if (this.done) return;
      await new Promise<void>((resolve) => { this.wake = resolve; });
      this.wake = undefined;
    }
  }
}

type Verifier = SshOptions['verifyHostKey'];

export class WorkerRunner implements CommandRunner {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly opening = new Map<number, { resolve: (c: RemoteCommand) => void; reject: (e: Error) => void }>();
  /** Logins asked for by connect(), by message id. */
  private readonly connecting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private readonly commands = new Map<number, WorkerCommand>();
  /** The verifiers of each session's last login options, by hop. */
  private readonly verifiers = new Map<string, Verifier[]>();
  private closed: (() => void) | undefined;

  constructor(private readonly script: string) {}

  exec(key: string, options: SshOptions, command: string): Promise<RemoteCommand> {
    return this.ask(this.opening, key, options, (id, wire) => ({ t: 'exec', id, key, options: wire, command }));
  }

  connect(key: string, options: SshOptions): Promise<void> {
    return this.ask(this.connecting, key, options, (id, wire) => ({ t: 'connect', id, key, options: wire }));
  }

  /** Sends the worker a request about session `key`; its answer settles the promise kept in `pending`. */
  private ask<T>(pending: Map<number, { resolve: (v: T) => void; reject: (e: Error) => void }>, key: string, options: SshOptions,
    message: (id: number, wire: WireSshOptions) => ToWorker): Promise<T> {
    const worker = this.start();
    const { wire, verifiers } = toWire(options);
    this.verifiers.set(key, verifiers);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      this.holdOpen();
      this.send(worker, message(id, wire));
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const closed = new Promise<void>((resolve) => {
      this.closed = resolve;
      const timer = setTimeout(resolve, 3000);
      timer.unref();
    });
    worker.ref();
    this.send(worker, { t: 'close' });
    await closed;
    this.closed = undefined;
    if (this.worker === worker) this.stopped(undefined);
    await worker.terminate();
  }

  /** The reader is done with the next `n` bytes: their part of the ring is the worker's again. */
  ack(id: number, n: number): void {
    if (this.worker && this.commands.has(id)) this.send(this.worker, { t: 'ack', id, n });
  }

  /** A command nobody reads any more: the worker closes its channel. */
  drop(id: number): void {
    if (!this.commands.delete(id)) return;
    if (this.worker) this.send(this.worker, { t: 'destroy', id });
    this.holdOpen();
  }

  private send(worker: Worker, m: ToWorker): void {
    worker.postMessage(m);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    worker.on('message', (m: FromWorker) => this.receive(worker, m));
    worker.on('error', (err) => { if (this.worker === worker) this.stopped(err); });
    worker.on('exit', (code) => { if (this.worker === worker) this.stopped(new Error(`it exited with code ${code}`)); });
    this.worker = worker;
    return worker;
  }

  /** Keeps the process alive while a login or a command is opening or running, not while the sessions idle. */
  private holdOpen(): void {
    if (!this.worker) return;
    if (this.opening.size + this.connecting.size + this.commands.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  /** The worker is gone: what was opening fails, what was running ends without an exit status (as a dropped connection). */
  private stopped(err: Error | undefined): void {
    this.worker = undefined;
    const why = new Error(`the SSH worker stopped${err ? `: ${err.message}` : ''}`);
    for (const o of this.opening.values()) o.reject(why);
    this.opening.clear();
    for (const c of this.connecting.values()) c.reject(why);
    this.connecting.clear();
    for (const c of this.commands.values()) c.finish({ stderr: '' });
    this.commands.clear();
    this.closed?.();
  }

  private receive(worker: Worker, m: FromWorker): void {
    switch (m.t) {
      case 'opened': {
        const o = this.opening.get(m.id);
        this.opening.delete(m.id);
        const c = new WorkerCommand(m.id, this, Buffer.from(m.ring));
        this.commands.set(m.id, c);
        if (o) o.resolve(c);
        else c.destroy();
        break;
      }
      case 'connected': {
        this.connecting.get(m.id)?.resolve();
        this.connecting.delete(m.id);
        this.holdOpen();
        break;
      }
      case 'failed': {
        const o = this.opening.get(m.id) ?? this.connecting.get(m.id);
        this.opening.delete(m.id);
        this.connecting.delete(m.id);
        o?.reject(rebuild(m.error));
        this.holdOpen();
        break;
      }
      case 'data': {
        const c = this.commands.get(m.id);
        c?.push(c.ring.subarray(m.off, m.off + m.n));
        break;
      }
      case 'end': {
        const c = this.commands.get(m.id);
        this.commands.delete(m.id);
        c?.finish({ ...(m.exit ? { exit: m.exit } : {}), stderr: m.stderr });
        this.holdOpen();
        break;
      }
      case 'verify': {
        const verify = this.verifiers.get(m.key)?.[m.hop];
        const info = { ...m.info, key: Buffer.from(m.info.key.buffer, m.info.key.byteOffset, m.info.key.byteLength) };
        // why: no verifier on this side means none was given, and the worker does not ask then; refuse if it does.
        Promise.resolve().then(() => (verify ? verify(info) : false)).then(
          (ok) => this.send(worker, { t: 'verified', vid: m.vid, ok: ok === true }),
          () => this.send(worker, { t: 'verified', vid: m.vid, ok: false }),
        );
        break;
      }
      case 'closed':
        this.closed?.();
        break;
    }
  }
}
