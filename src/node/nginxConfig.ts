/**
 * The nginx.conf of a private, unprivileged nginx: one foreground process (no daemon, no master)
 * with its pid, error log and temp directories all under its prefix `dir`, so it needs no root and
 * leaves nothing outside `dir`. Used by the demo's front and the nginx integration test.
 */

export interface NginxConfigOptions {
  /** The prefix (`nginx -p`): holds logs/, the pid file and the temp directories. */
  dir: string;
  workerConnections: number;
  /** The rest of the `http` block: `log_format`s, upstreams, servers (indented as they should appear). */
  http: string;
}

/** The whole config text for `nginx -p dir -c dir/nginx.conf`. */
export function nginxConfig(opts: NginxConfigOptions): string {
  const { dir } = opts;
  return `
daemon off;
master_process off;
worker_processes 1;
error_log ${dir}/logs/error.log warn;
pid ${dir}/nginx.pid;
events { worker_connections ${opts.workerConnections}; }
http {
  client_body_temp_path ${dir}/tmp_body;
  proxy_temp_path ${dir}/tmp_proxy;
  fastcgi_temp_path ${dir}/tmp_fcgi;
  uwsgi_temp_path ${dir}/tmp_uwsgi;
  scgi_temp_path ${dir}/tmp_scgi;
${opts.http}
}
`;
}
