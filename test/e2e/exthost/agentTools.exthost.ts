/**
 * Inside VS Code's extension host, on the sample app: the agent tools are language-model tools
 * (`vscode.lm.tools` lists them with their schemas), and `vscode.lm.invokeTool` of `findings` returns
 * the N+1 findings the CLI's `scan --format json` reports for the same folder, each at its file:line.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import * as vscode from 'vscode';

const EXTENSION_ID = 'query-insight.query-insight';
const TOOL_NAMES = ['statements', 'findings', 'explain', 'advise', 'endpoints', 'slow_queries', 'runs_diff'].map((n) => `queryInsight_${n}`);

async function poll<T>(get: () => Promise<T> | T, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(v)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function invoke(name: string, input: object): Promise<string> {
  const source = new vscode.CancellationTokenSource();
  try {
    const r = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, source.token);
    return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  } finally {
    source.dispose();
  }
}

suite('Query Insight tools for agents in the extension host', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is loaded`);
    const folder = vscode.workspace.workspaceFolders![0].uri;
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, 'webapp/go/main.go')));
    await poll(() => ext.isActive, (a) => a, 'activation');
  });

  test('vscode.lm.tools lists the tools with their input schemas', async () => {
    const tools = await poll(() => vscode.lm.tools.filter((t) => t.name.startsWith('queryInsight_')), (t) => t.length === TOOL_NAMES.length, 'the seven tools');
    assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOL_NAMES].sort());
    const findings = tools.find((t) => t.name === 'queryInsight_findings')!;
    assert.match(findings.description, /N\+1/);
    const schema = findings.inputSchema as { type: string; properties: Record<string, { type: string }> };
    assert.equal(schema.type, 'object');
    assert.deepEqual(Object.keys(schema.properties).sort(), ['limit', 'line', 'path']);
  });

  test('invokeTool of findings returns the N+1 findings the CLI reports, at their file:line', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const text = await invoke('queryInsight_findings', { path: 'webapp', limit: 50 });
    const got = [...text.matchAll(/^- \*\*(\w+)\*\* `n-plus-one` \[([^\]]+)\]\(file:\/\/[^)]+#L(\d+)\)/gm)].map((m) => `${m[1]} ${m[2].replace(/\\(.)/g, '$1')}`).sort();
    // the CLI on the same folder, from this checkout's bundle
    const cli = join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'bin', 'query-insight.js');
    // why: not execFileSync, which would block the extension host while the CLI runs.
    const { stdout: out } = await promisify(execFile)(process.execPath, [cli, 'scan', folder, '--format', 'json'], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
    const want = out.trim().split('\n').map((l) => JSON.parse(l) as { code?: string; severity: string; file: string; line: number })
      .filter((r) => r.code === 'n-plus-one' && r.severity !== 'hint').map((r) => `${r.severity} ${r.file}:${r.line}`).sort();
    assert.ok(want.length >= 3, `the CLI finds the sample app's N+1 loops: ${out}`);
    assert.deepEqual(got, want, text);
    assert.match(text, /Plan findings need a database connection/);
  });

  test('a bad argument makes invokeTool fail with the reason, and the tool still answers after', async () => {
    await assert.rejects(invoke('queryInsight_findings', { limit: 0 }), /`limit` must be at least 1/);
    await assert.rejects(invoke('queryInsight_explain', { path: 'webapp/go/main.go' }), /give `path` and `line`/);
    const text = await invoke('queryInsight_statements', { path: 'webapp/go/main.go', line: 109 });
    assert.match(text, /in `getIndex`: ``SELECT `id`, `user_id`, `body`, `mime`, `created_at` FROM `posts` ORDER BY `created_at` DESC``/);
  });
});
