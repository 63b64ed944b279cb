/**
 * package.json's contributions agree with the code: every setting in the typed table (settings.ts)
 * is declared with the same type, default, scope and bounds and a description, and nothing else is;
 * the restricted (connection) settings are exactly the manifest's restrictedConfigurations; every
 * command id of the table is contributed with its title and category.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../support/paths';
import { SECTION, SETTINGS, SETTING_SECTIONS, restrictedSettings, sectionOf } from '../../../src/extension/settings';
import { COMMANDS, COMMAND_CATEGORY, COMMAND_TITLES } from '../../../src/extension/commands';
import { languageForPath, SOURCE_EXTENSIONS, SOURCE_GLOB } from '../../../src/core/source/languageOf';

interface Property {
  type: string; default: unknown; scope?: string; minimum?: number; maximum?: number; description?: string; markdownDescription?: string;
  items?: { type: string }; enum?: string[]; enumDescriptions?: string[]; markdownEnumDescriptions?: string[];
}
interface ConfigSection { id: string; title: string; order: number; properties: Record<string, Property> }
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const sections: ConfigSection[] = manifest.contributes.configuration;
const properties: Record<string, Property> = Object.assign({}, ...sections.map((s) => s.properties));

void test('every typed setting is declared in package.json with the same type, default, scope and bounds', () => {
  for (const [key, spec] of Object.entries(SETTINGS) as unknown as [string, Record<string, unknown>][]) {
    const p = properties[`${SECTION}.${key}`];
    assert.ok(p, `${SECTION}.${key} is missing from contributes.configuration`);
    assert.equal(p.type, spec.type, `${key}: type`);
    assert.deepEqual(p.default, spec.default, `${key}: default`);
    assert.equal(p.scope, spec.scope, `${key}: scope`);
    assert.equal(p.minimum, spec.minimum, `${key}: minimum`);
    assert.equal(p.maximum, spec.maximum, `${key}: maximum`);
    if (spec.type === 'array') assert.equal(p.items?.type, spec.items ?? 'string', `${key}: items`);
    assert.deepEqual(p.enum, 'enum' in spec ? spec.enum : undefined, `${key}: enum`);
    assert.ok((p.markdownDescription ?? p.description ?? '').length > 20, `${key}: a description`);
  }
});

void test('settings come in titled sections (Scan, Connection, SSH, Endpoints, Slow log), each key in the section of its prefix', () => {
  assert.ok(Array.isArray(sections), 'contributes.configuration is an array of sections');
  assert.deepEqual(sections.map((s) => s.title), SETTING_SECTIONS.map((s) => s.title));
  assert.deepEqual(sections.map((s) => s.order), sections.map((_, i) => i + 1));
  for (const s of sections) {
    assert.ok(Object.keys(s.properties).length > 0, `${s.title} is not empty`);
    for (const key of Object.keys(s.properties)) assert.equal(sectionOf(key.slice(SECTION.length + 1)), s.title, key);
  }
  assert.equal(new Set(sections.map((s) => s.id)).size, sections.length, 'distinct section ids');
});

void test('every enum setting describes each of its values', () => {
  const enums = Object.entries(properties).filter(([, p]) => p.enum);
  assert.ok(enums.length >= 1);
  for (const [key, p] of enums) {
    const d = p.enumDescriptions ?? p.markdownEnumDescriptions;
    assert.equal(d?.length, p.enum!.length, `${key}: one description per value`);
    assert.ok(d!.every((x) => x.length > 10), `${key}: descriptions say something`);
    assert.ok(p.enum!.includes(p.default as string), `${key}: the default is a value`);
  }
});

void test('package.json declares no setting the typed table lacks', () => {
  const declared = Object.keys(properties).map((k) => k.slice(SECTION.length + 1));
  assert.deepEqual(declared.filter((k) => !(k in SETTINGS)), []);
  assert.ok(Object.keys(properties).every((k) => k.startsWith(`${SECTION}.`)));
});

void test('analysis settings are resource-scoped; connection settings and matching-group regexes are restricted in untrusted workspaces', () => {
  for (const [key, spec] of Object.entries(SETTINGS)) {
    if (key.startsWith('scan.') && key !== 'scan.debounceMs' && key !== 'scan.fileTimeBudgetMs') assert.equal(spec.scope, 'resource', key);
    assert.equal('restricted' in spec && spec.restricted === true, key.startsWith('connection.') || key === 'endpoints.matchingGroups' || key === 'boxes' || key === 'runs.store', `${key}: restricted`);
  }
  const trust = manifest.capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, 'limited');
  assert.deepEqual([...trust.restrictedConfigurations].sort(), restrictedSettings().sort());
});

void test('every command of the table is contributed with its title and the category', () => {
  const contributed = new Map<string, { title: string; category: string }>(
    manifest.contributes.commands.map((c: { command: string; title: string; category: string }) => [c.command, c]));
  for (const id of Object.values(COMMANDS)) {
    const c = contributed.get(id);
    assert.ok(c, `${id} is contributed`);
    assert.equal(c.title, COMMAND_TITLES[id]);
    assert.equal(c.category, COMMAND_CATEGORY);
    assert.match(id, /^queryInsight\.[a-z][A-Za-z]+$/);
  }
  // contributed commands that have no id in the table would have no handler
  const ids = new Set<string>(Object.values(COMMANDS));
  assert.deepEqual([...contributed.keys()].filter((k) => !ids.has(k)), []);
});

void test('the manifest: engine, kind, entry points, activation and the side-bar container', () => {
  assert.equal(manifest.engines.vscode, '^1.95.0');
  assert.deepEqual(manifest.extensionKind, ['workspace']);
  assert.equal(manifest.main, './dist/extension.js');
  assert.equal(manifest.bin['query-insight'], './bin/query-insight.js');
  assert.ok(!manifest.activationEvents.includes('*'), 'no eager activation');
  for (const lang of ['go', 'ruby', 'python', 'php', 'javascript', 'typescript', 'perl', 'rust']) {
    assert.ok(manifest.activationEvents.includes(`onLanguage:${lang}`), lang);
  }
  const container = manifest.contributes.viewsContainers.activitybar.find((c: { id: string }) => c.id === 'queryInsight');
  assert.equal(container.title, 'Query Insight');
  assert.ok(readFileSync(join(REPO_ROOT, container.icon), 'utf8').includes('<svg'));
});

void test('marketplace metadata: a PNG icon, keywords, categories and a real repository', () => {
  const icon = readFileSync(join(REPO_ROOT, manifest.icon));
  assert.equal(icon.subarray(1, 4).toString('latin1'), 'PNG', 'the marketplace icon is a PNG');
  assert.ok(icon.readUInt32BE(16) >= 128 && icon.readUInt32BE(20) >= 128, 'at least 128×128');
  assert.ok(manifest.keywords.length >= 5 && manifest.keywords.length <= 30, 'keywords');
  for (const k of ['mysql', 'mariadb', 'explain']) assert.ok(manifest.keywords.includes(k), k);
  assert.ok(manifest.categories.includes('Linters'));
  assert.match(manifest.repository.url, /^https:\/\/github\.com\/[\w-]+\/[\w-]+\.git$/);
  assert.ok(!JSON.stringify(manifest).includes('example.invalid'));
});

/** Whether an `engines.node` range admits some Node 20 (each `||` alternative read by its first comparator). */
function admitsNode20(range: string): boolean {
  return range.split('||').some((alt) => {
    const m = /^\s*(>=|\^|~|=)?\s*v?(\d+)/.exec(alt);
    if (!m) return true;
    const major = Number(m[2]);
    return m[1] === '>=' ? major <= 20 : major === 20;
  });
}

void test('a clean install on the Node the README names: no locked dependency asks for a newer Node', () => {
  assert.equal(manifest.engines.node, '>=20');
  assert.ok(admitsNode20('^20.19.0 || ^22.13.0 || >=24') && admitsNode20('18 || 20 || >=22') && !admitsNode20('>= 22') && !admitsNode20('>=22.0.0'));
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string } }> };
  const tooNew = Object.entries(lock.packages)
    .filter(([, p]) => typeof p.engines?.node === 'string' && !admitsNode20(p.engines.node))
    .map(([name, p]) => `${name} ${p.engines?.node}`);
  assert.deepEqual(tooNew, []);
});

void test('one language table: activation on each language, no activation merely for containing JS/TS files, the scan glob from the table', () => {
  // why: a workspace with recorded runs is a Query Insight workspace: its last run's figures come back at start-up.
  assert.deepEqual(manifest.activationEvents.filter((e: string) => e.startsWith('workspaceContains:')), ['workspaceContains:.query-insight/runs/*.json'], 'a JS/TS repository alone does not activate the extension');
  for (const ext of ['go', 'rb', 'py', 'php', 'js', 'ts', 'pl', 'pm', 'psgi', 't', 'rs']) {
    assert.ok(SOURCE_EXTENSIONS.includes(ext), ext);
    assert.ok(SOURCE_GLOB.includes(`,${ext},`) || SOURCE_GLOB.includes(`{${ext},`) || SOURCE_GLOB.includes(`,${ext}}`), `SOURCE_GLOB has .${ext}`);
    const lang = languageForPath(`app.${ext}`);
    assert.ok(lang && manifest.activationEvents.includes(`onLanguage:${lang}`), `onLanguage:${lang} for .${ext}`);
  }
});

interface MenuItem { command: string; when?: string; group?: string }

void test('every command has a `when` clause in the palette, so none shows where it cannot work', () => {
  const palette: MenuItem[] = manifest.contributes.menus.commandPalette;
  for (const id of Object.values(COMMANDS)) {
    const entries = palette.filter((m) => m.command === id);
    assert.equal(entries.length, 1, `${id}: one palette entry`);
    assert.ok((entries[0]!.when ?? '').trim().length > 0, `${id}: a when clause`);
  }
  // why: the imports, Connect, Record run and Set up boxes work in any local workspace, so they may show before activation (they activate it);
  // everything else needs a key the extension sets (a statement, a configured connection, runs, a loaded log).
  const anywhere = new Set<string>([COMMANDS.importAccessLog, COMMANDS.importSlowLog, COMMANDS.importProfile, COMMANDS.addRun, COMMANDS.connectDatabase, COMMANDS.recordRun, COMMANDS.compareRecordedRuns, COMMANDS.setUpBoxes]);
  for (const m of palette.filter((x) => x.when !== 'false')) {
    if (anywhere.has(m.command)) assert.match(m.when!, /!virtualWorkspace/, m.command);
    else assert.match(m.when!, /queryInsight\./, m.command);
  }
  const when = (id: string) => palette.find((m) => m.command === id)!.when!;
  assert.match(when(COMMANDS.explainStatement), /queryInsight\.editorHasStatements/);
  assert.match(when(COMMANDS.measureStatement), /queryInsight\.editorHasStatements/);
});

void test('Watch / Stop pairs: eye and eye-closed icons, shown in turn by the watching context key, in the palette and the view title', () => {
  const icons = new Map<string, string>(manifest.contributes.commands.map((c: { command: string; icon?: string }) => [c.command, c.icon]));
  const pairs = [
    { watch: COMMANDS.watchAccessLog, stop: COMMANDS.stopWatchingAccessLog, key: 'queryInsight.accessLogWatching', view: 'queryInsight.endpoints' },
    { watch: COMMANDS.watchSlowLog, stop: COMMANDS.stopWatchingSlowLog, key: 'queryInsight.slowLogWatching', view: 'queryInsight.queries' },
  ];
  const palette: MenuItem[] = manifest.contributes.menus.commandPalette;
  const title: MenuItem[] = manifest.contributes.menus['view/title'];
  for (const p of pairs) {
    assert.equal(icons.get(p.watch), '$(eye)');
    assert.equal(icons.get(p.stop), '$(eye-closed)');
    assert.match(COMMAND_TITLES[p.watch], /^Watch /);
    assert.match(COMMAND_TITLES[p.stop], /^Stop watching /);
    for (const menu of [palette, title]) {
      const w = menu.find((m) => m.command === p.watch)!.when!;
      const s = menu.find((m) => m.command === p.stop)!.when!;
      assert.ok(w.includes(`!${p.key}`), `${p.watch}: hidden while watching (${w})`);
      assert.ok(s.split('&&').map((x) => x.trim()).includes(p.key), `${p.stop}: shown while watching (${s})`);
    }
    const [w, s] = [title.find((m) => m.command === p.watch)!, title.find((m) => m.command === p.stop)!];
    assert.equal(w.group, s.group, 'the pair takes one place in the title bar');
    assert.ok(w.when!.includes(`view == ${p.view}`) && s.when!.includes(`view == ${p.view}`));
  }
  assert.ok(!JSON.stringify(manifest.contributes.commands).includes('(toggle)'));
});

void test('the language table drives activation and the welcome text: every language of the table, and no other, activates and is named', () => {
  const languages = [...new Set(SOURCE_EXTENSIONS.map((ext) => languageForPath(`app.${ext}`)))].filter((l): l is NonNullable<typeof l> => !!l);
  // VS Code's ids for the same languages (JSX/TSX files are their own ids there) and how the welcome text names them
  const names: Record<string, string> = { go: 'Go', ruby: 'Ruby', python: 'Python', php: 'PHP', javascript: 'JavaScript', typescript: 'TypeScript', perl: 'Perl', rust: 'Rust' };
  assert.deepEqual([...languages].sort(), Object.keys(names).sort(), 'a language added to the table needs its activation and welcome entry');
  const expected = languages.flatMap((l) => (l === 'javascript' || l === 'typescript' ? [l, `${l}react`] : [l])).map((l) => `onLanguage:${l}`);
  assert.deepEqual(manifest.activationEvents.filter((e: string) => e.startsWith('onLanguage:')).sort(), expected.sort());
  const welcome: string = manifest.contributes.viewsWelcome
    .find((w: { view: string; when?: string }) => w.view === 'queryInsight.statements' && w.when === '!queryInsight.scanFailed').contents;
  for (const l of languages) assert.ok(welcome.includes(names[l]!), `the welcome text names ${names[l]}`);
});
