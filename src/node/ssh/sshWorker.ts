/**
 * The SSH worker: a worker thread that holds the SSH sessions to the boxes and runs the commands
 * that read their logs (sshWorkerClient.ts starts it). Decrypting the packets, the SSH protocol and
 * the socket are its work, on the second core, while the thread that started it only splits and
 * parses lines: on one thread, reading a log over SSH cost that thread about 40% more than
 * reading the same file from disk.
 *
 * stdout reaches the other thread in batches of up to BATCH bytes whose memory is transferred,
 * not copied, and comes back with the acknowledgement for the next batches (fresh memory for each
 * cost both threads page faults and zeroing, about a tenth of the worker's time). At most HIGH
 * bytes are sent and not yet consumed; past that the channel is paused, so the box stops sending
 * (SSH window) and memory stays bounded whatever the speeds.
 */
import { parentPort } from 'node:worker_threads';
import type { ClientChannel } from 'ssh2';
import { SshTunnel, type HostKeyInfo, type SshOptions } from '../../db/sshTunnel';
import { STDERR_KEEP } from './remoteCommand';
import type { FromWorker, ToWorker, WireSshOptions } from './sshWorkerProtocol';

const BATCH = 256 * 1024;
const HIGH = 4 * 1024 * 1024;
const LOW = HIGH / 2;

const port = parentPort;
if (!port) throw new Error('sshWorker.js runs as a worker thread (started by sshWorkerClient.ts)');
const post = (m: FromWorker, transfer?: ArrayBuffer[]): void => { port.postMessage(m, transfer); };

const sessions = new Map<string, SshTunnel>();
/** Batch buffers back from the other thread. */
const spare: Buffer[] = [];
const batchBuffer = (): Buffer => spare.pop() ?? Buffer.allocUnsafeSlow(BATCH);
const verifying = new Map<number, (ok: boolean) => void>();
let nextVid = 1;

/** The options with a verifier that asks the other thread, hop by hop. */
function fromWire(o: WireSshOptions, key: string, hop = 0): SshOptions {
  const { verify, jump, ...rest } = o;
  return {
    ...rest,
    ...(verify ? {
      verifyHostKey: (info: HostKeyInfo) => new Promise<boolean>((resolve) => {
        const vid = nextVid++;
        verifying.set(vid, resolve);
        post({ t: 'verify', vid, key, hop, info });
      }),
    } : {}),
    ...(jump ? { jump: fromWire(jump, key, hop + 1) } : {}),
  };
}

interface Running {
  channel: ClientChannel;
  buf: Buffer;
  len: number;
  flushing: boolean;
  unacked: number;
  paused: boolean;
  destroyed: boolean;
}
const running = new Map<number, Running>();

function flush(id: number, r: Running): void {
  r.flushing = false;
  if (r.len === 0 || r.destroyed) return;
  const full = r.buf;
  const n = r.len;
  r.buf = batchBuffer();
  r.len = 0;
  r.unacked += n;
  // why: allocUnsafeSlow gives the Buffer an ArrayBuffer of its own (not a pool slice), so it can be transferred.
  post({ t: 'data', id, buf: full.buffer as ArrayBuffer, n }, [full.buffer as ArrayBuffer]);
  if (r.unacked >= HIGH && !r.paused) { r.paused = true; r.channel.pause(); }
}

function exec(id: number, key: string, options: WireSshOptions, command: string): void {
  let tunnel = sessions.get(key);
  if (!tunnel) sessions.set(key, tunnel = new SshTunnel(fromWire(options, key)));
  tunnel.exec(command).then((channel) => {
    const r: Running = { channel, buf: batchBuffer(), len: 0, flushing: false, unacked: 0, paused: false, destroyed: false };
    running.set(id, r);
    post({ t: 'opened', id });
    let stderr = '';
    let exit: { code: number | null; signal?: string } | undefined;
    channel.stderr.on('data', (d: Buffer) => { if (stderr.length < STDERR_KEEP) stderr += d.toString('utf8'); });
    channel.on('exit', (code: number | null, signal?: string) => { exit = { code, ...(signal ? { signal } : {}) }; });
    channel.on('data', (d: Buffer) => {
      if (r.destroyed) return;
      let off = 0;
      while (off < d.length) {
        const n = Math.min(BATCH - r.len, d.length - off);
        d.copy(r.buf, r.len, off, off + n);
        r.len += n;
        off += n;
        if (r.len === BATCH) flush(id, r);
      }
      // why: the packets of one socket read arrive in one go; they leave together after it.
      if (r.len > 0 && !r.flushing) { r.flushing = true; setImmediate(() => flush(id, r)); }
    });
    // why: ssh2 emits 'close' after stdout's end, so every byte is posted before 'end'.
    channel.on('close', () => {
      flush(id, r);
      running.delete(id);
      if (!r.destroyed) post({ t: 'end', id, ...(exit ? { exit } : {}), stderr });
    });
  }, (err: unknown) => {
    const e = err as Error & { kind?: string };
    post({ t: 'failed', id, error: { name: e.name ?? 'Error', message: e.message ?? String(err), ...(e.kind ? { kind: e.kind } : {}) } });
  });
}

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'exec': exec(m.id, m.key, m.options, m.command); break;
    case 'ack': {
      if (m.buf?.byteLength === BATCH && spare.length < HIGH / BATCH) spare.push(Buffer.from(m.buf));
      const r = running.get(m.id);
      if (!r) break;
      r.unacked -= m.n;
      if (r.paused && r.unacked <= LOW) { r.paused = false; r.channel.resume(); }
      break;
    }
    case 'destroy': {
      const r = running.get(m.id);
      if (!r) break;
      r.destroyed = true;
      r.channel.destroy();
      // why: a paused channel never ends; flowing, what still arrives is dropped and 'close' comes.
      r.channel.resume();
      break;
    }
    case 'verified': {
      const answer = verifying.get(m.vid);
      verifying.delete(m.vid);
      answer?.(m.ok);
      break;
    }
    case 'close': {
      const all = [...sessions.values()];
      sessions.clear();
      void Promise.all(all.map((t) => t.close())).then(() => post({ t: 'closed' }));
      break;
    }
  }
});
