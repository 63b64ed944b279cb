/**
 * The SSH worker: a worker thread that holds the SSH sessions to the boxes and runs the commands
 * that read their logs (sshWorkerClient.ts starts it). Decrypting the packets, the SSH protocol and
 * the socket are its work, on the second core, while the thread that started it only splits and
 * parses lines: on one thread, reading a log over SSH cost that thread about 40% more than
 * reading the same file from disk.
 *
 * A command's stdout goes through a ring of RING bytes in memory both threads share: the worker
 * writes what arrives and posts where (offset, length), in batches of up to BATCH bytes; the other
 * thread reads the bytes in place and acknowledges them when it has parsed them, which frees that
 * part of the ring (ringWriter.ts). Nothing is allocated or transferred per batch. (Transferring
 * each batch's memory there and back detached an ArrayBuffer on the parsing thread, after which V8
 * checks for detachment in that thread's optimized typed-array code: in paired runs over a 1M-line
 * log the parsing thread took about 8% more CPU time that way.) Near full, the channel is paused,
 * so the box stops sending (SSH window) and memory stays bounded whatever the speeds; what a packet
 * brings past the end of the free space waits in a short list until acknowledgements make room.
 */
import { parentPort } from 'node:worker_threads';
import type { ClientChannel } from 'ssh2';
import { SshTunnel, type HostKeyInfo, type SshOptions } from '../../db/sshTunnel';
import { STDERR_KEEP } from './remoteCommand';
import { RingWriter } from './ringWriter';
import type { FromWorker, ToWorker, WireSshOptions } from './sshWorkerProtocol';

const BATCH = 256 * 1024;
const RING = 4 * 1024 * 1024;
/** The channel pauses with this much of the ring in use, so a packet rarely finds it full. */
const HIGH = RING - 512 * 1024;
const LOW = RING / 2;

const port = parentPort;
if (!port) throw new Error('sshWorker.js runs as a worker thread (started by sshWorkerClient.ts)');
const post = (m: FromWorker): void => { port.postMessage(m); };

const sessions = new Map<string, SshTunnel>();
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
  out: RingWriter;
  flushing: boolean;
  paused: boolean;
  destroyed: boolean;
  /** Set when the channel closed: the end message, posted once every byte is. */
  end?: FromWorker;
}
const running = new Map<number, Running>();

/** Posts what the ring holds unposted soon, once, after the packets of the current socket read. */
function flushSoon(r: Running): void {
  if (r.out.pending === 0 || r.flushing) return;
  r.flushing = true;
  setImmediate(() => { r.flushing = false; if (!r.destroyed) r.out.flush(); });
}

/** The channel closed: once nothing waits for room, the rest is posted, then the end. */
function endIfDrained(id: number, r: Running): void {
  if (!r.end || r.out.backlogged) return;
  if (!r.destroyed) r.out.flush();
  running.delete(id);
  if (!r.destroyed) post(r.end);
}

/** The session `key`, made from `options` the first time. */
function tunnelFor(key: string, options: WireSshOptions): SshTunnel {
  let tunnel = sessions.get(key);
  if (!tunnel) sessions.set(key, tunnel = new SshTunnel(fromWire(options, key)));
  return tunnel;
}

function failed(id: number, err: unknown): void {
  const e = err as Error & { kind?: string };
  post({ t: 'failed', id, error: { name: e.name ?? 'Error', message: e.message ?? String(err), ...(e.kind ? { kind: e.kind } : {}) } });
}

function exec(id: number, key: string, options: WireSshOptions, command: string): void {
  tunnelFor(key, options).exec(command).then((channel) => {
    const r: Running = { channel, out: new RingWriter(RING, BATCH, (off, n) => post({ t: 'data', id, off, n })), flushing: false, paused: false, destroyed: false };
    running.set(id, r);
    post({ t: 'opened', id, ring: r.out.shared });
    let stderr = '';
    let exit: { code: number | null; signal?: string } | undefined;
    channel.stderr.on('data', (d: Buffer) => { if (stderr.length < STDERR_KEEP) stderr += d.toString('utf8'); });
    channel.on('exit', (code: number | null, signal?: string) => { exit = { code, ...(signal ? { signal } : {}) }; });
    channel.on('data', (d: Buffer) => {
      if (r.destroyed) return;
      r.out.push(d);
      if (!r.paused && (r.out.backlogged || r.out.used >= HIGH)) { r.paused = true; r.channel.pause(); }
      // why: the packets of one socket read arrive in one go; they leave together after it.
      flushSoon(r);
    });
    // why: ssh2 emits 'close' after stdout's end, so every byte is posted before 'end'.
    channel.on('close', () => {
      r.end = { t: 'end', id, ...(exit ? { exit } : {}), stderr };
      endIfDrained(id, r);
    });
  }, (err: unknown) => failed(id, err));
}

port.on('message', (m: ToWorker) => {
  switch (m.t) {
    case 'exec': exec(m.id, m.key, m.options, m.command); break;
    case 'connect': tunnelFor(m.key, m.options).connect().then(() => post({ t: 'connected', id: m.id }), (err: unknown) => failed(m.id, err)); break;
    case 'ack': {
      const r = running.get(m.id);
      if (!r) break;
      r.out.ack(m.n);
      flushSoon(r);
      endIfDrained(m.id, r);
      if (r.paused && !r.end && !r.out.backlogged && r.out.used <= LOW) { r.paused = false; r.channel.resume(); }
      break;
    }
    case 'destroy': {
      const r = running.get(m.id);
      if (!r) break;
      r.destroyed = true;
      r.out.discard();
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
