/**
 * Commands run on other boxes over SSH, as the log readers see them: stdout as a stream of chunks
 * that is only sent as fast as it is consumed, and how the command ended. Two runners give them:
 * the SSH worker (sshWorkerClient.ts: the sessions, their decryption and the protocol live on a
 * worker thread, so the thread that parses the lines does nothing else) and this file's
 * ThreadRunner (the sessions on the calling thread), used where the worker's script is absent.
 */
import type { SshOptions, SshTunnel } from '../../db/sshTunnel';

/** How a command ended: its exit status (absent when the channel closed without one: the connection dropped) and the start of its stderr. */
export interface RemoteEnd {
  exit?: { code: number | null; signal?: string };
  stderr: string;
}

/** A command running on a box. */
export interface RemoteCommand {
  /**
   * stdout in order; ends when the channel closes. The box sends more only as chunks are taken. A
   * chunk is valid until the next one is asked for: its memory may then go back to the sender.
   */
  readonly stdout: AsyncIterable<Buffer>;
  /** Settles once the channel has closed (or was destroyed here). */
  readonly ended: Promise<RemoteEnd>;
  /** Closes the channel; what was not read yet is dropped. */
  destroy(): void;
}

/** Runs commands on boxes, one SSH session per `key` (user@host:port), logged in on first use and again after a drop. */
export interface CommandRunner {
  /** Starts `command` on the box; rejects when the login fails or the box refuses the channel. */
  exec(key: string, options: SshOptions, command: string): Promise<RemoteCommand>;
  /** Logs in to the box now, unless its session is up or logging in; rejects when the login fails. */
  connect(key: string, options: SshOptions): Promise<void>;
  /** Closes every session. */
  close(): Promise<void>;
}

/** Bytes of stderr kept for messages. */
export const STDERR_KEEP = 2048;

/** Sessions on the calling thread: the runner where no SSH worker can be started. */
export class ThreadRunner implements CommandRunner {
  private readonly sessions = new Map<string, SshTunnel>();

  async exec(key: string, options: SshOptions, command: string): Promise<RemoteCommand> {
    const channel = await (await this.tunnel(key, options)).exec(command);
    let stderr = '';
    channel.stderr.on('data', (d: Buffer) => { if (stderr.length < STDERR_KEEP) stderr += d.toString('utf8'); });
    let exit: RemoteEnd['exit'];
    const ended = new Promise<RemoteEnd>((resolve) => {
      channel.on('exit', (code: number | null, signal?: string) => { exit = { code, ...(signal ? { signal } : {}) }; });
      channel.on('close', () => resolve({ ...(exit ? { exit } : {}), stderr }));
    });
    return { stdout: channel as AsyncIterable<Buffer>, ended, destroy: () => { channel.destroy(); } };
  }

  async connect(key: string, options: SshOptions): Promise<void> {
    await (await this.tunnel(key, options)).connect();
  }

  private async tunnel(key: string, options: SshOptions): Promise<SshTunnel> {
    let tunnel = this.sessions.get(key);
    if (!tunnel) {
      // why: loaded on the first remote command, so a local read does not pay for ssh2 (tens of ms and ~10 MB at start).
      const { SshTunnel: Tunnel } = await import('../../db/sshTunnel');
      tunnel = this.sessions.get(key);
      if (!tunnel) this.sessions.set(key, tunnel = new Tunnel(options));
    }
    return tunnel;
  }

  async close(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((t) => t.close()));
  }
}
