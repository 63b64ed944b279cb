/**
 * The walkthrough in package.json agrees with the extension: each step completes on a context key the
 * extension sets after the real action (never on a command merely run), the Copy buttons name snippets
 * that exist, each snippet is shown verbatim in its step's Markdown, the nginx format is the documented
 * one (the one the demo's real nginx writes), and no step points at a file of this repository.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { COMMANDS } from '../../../src/extension/commands';
import { completionEventsOf, copyLink, snippetOf, SNIPPETS, WALKTHROUGH_CONTEXT, type SnippetId } from '../../../src/extension/walkthrough/walkthroughSteps';
import { documentedLtsvFormat } from '../../../src/node/demo/nginxFront';

interface Step { id: string; title: string; description: string; media: { markdown: string }; completionEvents?: string[] }
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const walkthrough = manifest.contributes.walkthroughs[0] as { steps: Step[] };
const steps = walkthrough.steps;
const mediaOf = (s: Step) => readFileSync(join(REPO_ROOT, s.media.markdown), 'utf8');
const COPY_LINK = new RegExp(`command:${COMMANDS.copyWalkthroughSnippet.replace(/\./g, '\\.')}\\?([^)\\s]+)`, 'g');

/** Snippet ids the Copy links of a text name (the argument is a URI-encoded JSON array). */
function copied(text: string): string[] {
  return [...text.matchAll(COPY_LINK)].map((m) => (JSON.parse(decodeURIComponent(m[1])) as unknown[])[0] as string);
}

void test('each step completes on a context key set after the real action, one step per action', () => {
  const byStep = Object.fromEntries(steps.map((s) => [s.id, s.completionEvents ?? []]));
  assert.deepEqual(byStep, {
    connect: completionEventsOf(WALKTHROUGH_CONTEXT.connected),
    nginxLog: completionEventsOf(WALKTHROUGH_CONTEXT.accessLogImported),
    slowLog: completionEventsOf(WALKTHROUGH_CONTEXT.slowLogImported),
    compareRuns: completionEventsOf(WALKTHROUGH_CONTEXT.compared),
  });
  // one of the two holds whichever editor is active, so the step ticks for work done before Get Started opened
  assert.deepEqual(completionEventsOf('k'), ["onContext:k && activeEditor == 'gettingStartedPage'", "onContext:k && activeEditor != 'gettingStartedPage'"]);
  for (const s of steps) for (const e of s.completionEvents ?? []) assert.doesNotMatch(e, /^onCommand:/, `${s.id}: a command can fail or be cancelled`);
});

void test('every Copy button names a snippet, and each snippet is shown verbatim beside its button', () => {
  const used = new Set<string>();
  for (const s of steps) {
    const md = mediaOf(s);
    for (const id of [...copied(s.description), ...copied(md)]) {
      const snippet = snippetOf(id);
      assert.ok(snippet, `${s.id}: Copy names an unknown snippet ${id}`);
      used.add(id);
      assert.ok(md.includes(`\`\`\`${snippet.language}\n${snippet.text}\n\`\`\``), `${s.media.markdown} shows ${id} verbatim`);
      assert.ok(md.includes(copyLink(COMMANDS.copyWalkthroughSnippet, id as SnippetId, '').slice(2)), `${s.media.markdown} has a Copy link for ${id}`);
    }
  }
  assert.deepEqual([...used].sort(), Object.keys(SNIPPETS).sort(), 'every snippet has a Copy button');
  assert.equal(snippetOf('constructor'), undefined);
  assert.equal(snippetOf(['nginxLtsv']), undefined);
});

void test('the nginx log_format is the documented one, which the demo runs real nginx with', () => {
  const documented = documentedLtsvFormat(join(REPO_ROOT, 'docs', 'nginx-log-formats.md'));
  const shown = SNIPPETS.nginxLtsv.text.split('\n').filter((l) => !l.startsWith('access_log')).join('\n');
  assert.equal(shown.trim(), documented.trim());
});

void test('steps point at nothing an extension user lacks: their media ship, and no repository file is named', () => {
  for (const s of steps) {
    assert.ok(existsSync(join(REPO_ROOT, s.media.markdown)), s.media.markdown);
    assert.ok(s.media.markdown.startsWith('media/'), `${s.media.markdown} ships (.vscodeignore keeps media/)`);
    for (const text of [s.description, mediaOf(s)]) {
      assert.doesNotMatch(text, /\b(docs|test|src|scripts)\/[\w./-]+/, `${s.id} names a file of this repository`);
      for (const m of text.matchAll(/\]\(([^)]+)\)/g)) assert.match(m[1], /^command:queryInsight\.\w+/, `${s.id}: only command links (${m[1]})`);
    }
  }
});
