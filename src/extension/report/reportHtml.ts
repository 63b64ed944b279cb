/**
 * The report page's HTML shell: a strict Content Security Policy (nothing by default; the one script
 * by nonce; styles and images only from the extension's own files), the stylesheet, an empty root
 * and the bundled script. No inline script or style, no remote resource. Pure (no vscode import), so
 * the policy is unit-tested.
 */
import { randomBytes } from 'node:crypto';

export interface ShellParts {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

/** A fresh nonce: 16 random bytes, base64. */
export function makeNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The Content-Security-Policy of the page. */
export function reportCsp(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function reportHtml(p: ShellParts): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(reportCsp(p.cspSource, p.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(p.styleUri)}">
<title>Query Insight report</title>
</head>
<body>
<div id="root" aria-live="polite"></div>
<script nonce="${attr(p.nonce)}" src="${attr(p.scriptUri)}"></script>
</body>
</html>
`;
}
