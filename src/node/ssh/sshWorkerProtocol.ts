/**
 * The messages between the SSH worker (sshWorker.ts) and the thread that reads the logs
 * (sshWorkerClient.ts). Login options cross without their host-key verifier, a function: the
 * worker asks for each host key it is shown, and the verifier answers on the reading thread.
 */
import type { HostKeyInfo, SshOptions } from '../../db/sshTunnel';

/** SshOptions as they cross to the worker: `verify` says whether a verifier waits on the other side. */
export type WireSshOptions = Omit<SshOptions, 'verifyHostKey' | 'jump'> & { verify: boolean; jump?: WireSshOptions };

/** What a failure looked like in the worker. */
export interface WireError { name: string; message: string; kind?: string }

export type ToWorker =
  | { t: 'exec'; id: number; key: string; options: WireSshOptions; command: string }
  /** Log in to the box of session `key` now (answered by 'connected' or 'failed'). */
  | { t: 'connect'; id: number; key: string; options: WireSshOptions }
  /** The next `n` bytes of the command's stdout were consumed: their part of the ring is free again. */
  | { t: 'ack'; id: number; n: number }
  | { t: 'destroy'; id: number }
  | { t: 'verified'; vid: number; ok: boolean }
  | { t: 'close' };

export type FromWorker =
  /** The command runs; its stdout comes through `ring`, memory both threads share. */
  | { t: 'opened'; id: number; ring: SharedArrayBuffer }
  | { t: 'connected'; id: number }
  | { t: 'failed'; id: number; error: WireError }
  /** The next `n` bytes of stdout, in the ring from `off` (they stay there until acknowledged). */
  | { t: 'data'; id: number; off: number; n: number }
  | { t: 'end'; id: number; exit?: { code: number | null; signal?: string }; stderr: string }
  /** A host key to verify for the session `key`, at `hop` (0: the box, 1: its jump host, …). */
  | { t: 'verify'; vid: number; key: string; hop: number; info: HostKeyInfo }
  | { t: 'closed' };

/** The options without their verifiers, and the verifiers by hop (index 0: the box itself). */
export function toWire(options: SshOptions): { wire: WireSshOptions; verifiers: (SshOptions['verifyHostKey'])[] } {
  const verifiers: (SshOptions['verifyHostKey'])[] = [];
  const strip = (o: SshOptions): WireSshOptions => {
    const { verifyHostKey, jump, ...rest } = o;
    verifiers.push(verifyHostKey);
    return { ...rest, verify: verifyHostKey !== undefined, ...(jump ? { jump: strip(jump) } : {}) };
  };
  return { wire: strip(options), verifiers };
}
