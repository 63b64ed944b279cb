/**
 * A private nginx (Debian package) on a free loopback port in front of the sample app, logging in
 * the LTSV layout users paste from docs/nginx-log-formats.md, and serving the static files itself as
 * a contest box does. One foreground process in its own process group; stop() flushes and ends it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { nginxConfig } from '../nginxConfig';
import { freePort } from '../freePort';

export const NGINX_CANDIDATES = ['/usr/sbin/nginx', '/usr/bin/nginx'];

export function nginxAvailable(): string | undefined {
  return NGINX_CANDIDATES.find((p) => existsSync(p));
}

/** The documented `log_format ltsv …;` block (without its `access_log` line). */
export function documentedLtsvFormat(docsFile: string): string {
  const md = readFileSync(docsFile, 'utf8');
  const block = [...md.matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => /log_format\s+ltsv\b/.test(b));
  if (!block) throw new Error(`${docsFile}: no \`\`\`nginx block with "log_format ltsv"`);
  return block.split('\n').filter((l) => !l.trim().startsWith('access_log')).join('\n');
}

export interface NginxFront {
  port: number;
  pid: number;
  stop(): Promise<void>;
}


/**
 * Starts nginx with its prefix in `dir`, proxying to 127.0.0.1:`upstreamPort`, writing `accessLog`
 * (LTSV) and serving `staticFiles` (path → content) from dir/public.
 */
export async function startNginxFront(opts: {
  dir: string; upstreamPort: number; accessLog: string; docsFile: string; staticFiles: Record<string, string>;
}): Promise<NginxFront> {
  const bin = nginxAvailable();
  if (!bin) throw new Error('nginx not found: apt-get install -y nginx (scripts/setup-test-env.sh does)');
  const { dir } = opts;
  mkdirSync(join(dir, 'logs'), { recursive: true });
  for (const [path, content] of Object.entries(opts.staticFiles)) {
    mkdirSync(dirname(join(dir, 'public', path)), { recursive: true });
    writeFileSync(join(dir, 'public', path), content);
  }
  const port = await freePort();
  const statics = Object.keys(opts.staticFiles).map((p) => `    location = ${p} { root ${join(dir, 'public')}; }`).join('\n');
  writeFileSync(join(dir, 'nginx.conf'), nginxConfig({ dir, workerConnections: 256, http: `${documentedLtsvFormat(opts.docsFile)}
  upstream app {
    server 127.0.0.1:${opts.upstreamPort};
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    access_log ${opts.accessLog} ltsv;
${statics}
    location / {
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_read_timeout 120s;
      proxy_pass http://app;
    }
  }` }));
  // why: its own process group, so a Ctrl+C in the demo's terminal reaches only the demo, which then
  // stops nginx in order (SIGQUIT: finish the requests in flight, close the logs).
  const proc = spawn(bin, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    try { await (await fetch(`http://127.0.0.1:${port}/favicon.ico`)).arrayBuffer(); break; } catch { /* not up yet */ }
    if (Date.now() > deadline) { proc.kill('SIGKILL'); throw new Error(`nginx did not start within 10 s: ${stderr}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    proc.kill('SIGQUIT');
    await Promise.race([exited, new Promise<void>((r) => setTimeout(r, 10_000).unref())]);
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  };
  return { port, pid: proc.pid ?? 0, stop };
}
