/**
 * What the "Get started" walkthrough relies on, in one place: the context keys its steps complete on
 * (set only when the action really succeeded) and the setup snippets it shows with a Copy button.
 * Pure: a unit test checks that package.json's steps and media/walkthrough/*.md use exactly these.
 */

/** Context keys the walkthrough's `completionEvents` wait for (`onContext:<key>`). */
export const WALKTHROUGH_CONTEXT = {
  /** A database connection came up (not merely "Connect to database" run: it can fail). */
  connected: 'queryInsight.walkthrough.connected',
  /** An access-log run exists: an import read at least one request. */
  accessLogImported: 'queryInsight.walkthrough.accessLogImported',
  /** A slow-log run exists: an import read at least one statement. */
  slowLogImported: 'queryInsight.walkthrough.slowLogImported',
  /** Two runs were compared and the comparison shown. */
  compared: 'queryInsight.walkthrough.compared',
} as const;

/** The Get Started editor pane's id, as the `activeEditor` context key names it. */
export const GET_STARTED_EDITOR = 'gettingStartedPage';

/**
 * The completion events of a step that completes on `key`. why: VS Code (1.100) does not tick a step
 * whose `onContext` expression is already true when it registers the walkthrough — which it does only
 * once Get Started is first opened, after the user may have done the work — and never fires that event
 * again in the session. Splitting the key on `activeEditor` makes one of the two expressions false at
 * registration, whatever is open then; it becomes true at the next switch to or from Get Started.
 * While the walkthrough is registered, the key turning true makes one of them true at once.
 */
export function completionEventsOf(key: string): string[] {
  return [`onContext:${key} && activeEditor == '${GET_STARTED_EDITOR}'`, `onContext:${key} && activeEditor != '${GET_STARTED_EDITOR}'`];
}

export interface Snippet {
  /** What the confirmation names (`the nginx log_format`). */
  what: string;
  /** The fence language it is shown under in the walkthrough's Markdown. */
  language: string;
  text: string;
}

/**
 * The text each Copy button copies. The Markdown shows the same text (checked by a test), and the
 * LTSV format is the one docs/nginx-log-formats.md documents and the demo's real nginx writes.
 */
export const SNIPPETS = {
  nginxLtsv: {
    what: 'the nginx log_format', language: 'nginx',
    text: [
      'log_format ltsv "time:$time_local"',
      '                "\\thost:$remote_addr"',
      '                "\\tforwardedfor:$http_x_forwarded_for"',
      '                "\\treq:$request"',
      '                "\\tmethod:$request_method"',
      '                "\\turi:$request_uri"',
      '                "\\tstatus:$status"',
      '                "\\tsize:$body_bytes_sent"',
      '                "\\treqsize:$request_length"',
      '                "\\treferer:$http_referer"',
      '                "\\tua:$http_user_agent"',
      '                "\\treqtime:$request_time"',
      '                "\\tapptime:$upstream_response_time"',
      '                "\\tvhost:$host";',
      'access_log /var/log/nginx/access.log ltsv;',
    ].join('\n'),
  },
  slowLogConfig: {
    what: 'the slow-log settings', language: 'ini',
    text: [
      '[mysqld]',
      'slow_query_log      = 1',
      'long_query_time     = 0',
      'slow_query_log_file = /var/log/mysql/mysql-slow.log',
    ].join('\n'),
  },
  slowLogSql: {
    what: 'the SET GLOBAL statements', language: 'sql',
    text: [
      "SET GLOBAL slow_query_log_file = '/var/log/mysql/mysql-slow.log';",
      'SET GLOBAL long_query_time = 0;',
      'SET GLOBAL slow_query_log = 1;',
    ].join('\n'),
  },
} as const satisfies Record<string, Snippet>;

export type SnippetId = keyof typeof SNIPPETS;

/** The snippet a command argument names, or undefined for anything else. */
export function snippetOf(arg: unknown): Snippet | undefined {
  return typeof arg === 'string' && Object.prototype.hasOwnProperty.call(SNIPPETS, arg) ? SNIPPETS[arg as SnippetId] : undefined;
}

/** A Markdown command link that copies the snippet (`command:` URI with its argument as a JSON array). */
export function copyLink(command: string, id: SnippetId, label = 'Copy'): string {
  return `[${label}](command:${command}?${encodeURIComponent(JSON.stringify([id]))})`;
}
