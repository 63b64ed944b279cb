#!/usr/bin/env node
// How responsive the extension host stays while the editor imports a large access log: the same
// reading path as "Import access log" (AccessLogSession.load) on a generated 200 MB log, run in this
// process while (a) a timer measures how long the event loop is held at a time, and (b) a child
// process sends a message over an IPC channel every 20 ms and times each answer, as the workbench's
// commands reach the extension host. Prints the longest stall, the answer times and the import time.
//
//   node scripts/build.mjs --tests && node bench/importStall.mjs
//
// Env: MODE (session: as the editor reads; noyield: the reader never yielding), MB (default 200), RUNS (default 3), DATA_DIR (default $TMPDIR/qi-bench).
import { fork } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

if (process.argv[2] === '--pinger') {
  // the child: one message every 20 ms, the round trip of each kept
  const rtts = [];
  const sentAt = new Map();
  let seq = 0;
  process.on('message', (m) => {
    if (m === 'stop') { process.send({ rtts }); return; }
    const at = sentAt.get(m.pong);
    if (at !== undefined) { rtts.push(performance.now() - at); sentAt.delete(m.pong); }
  });
  const tick = () => { sentAt.set(++seq, performance.now()); process.send({ ping: seq }); };
  setInterval(tick, 20);
} else {
  await main();
}

async function main() {
  const out = join(root, 'out');
  if (!existsSync(join(out, 'src/extension/endpoints/accessLogSession.js'))) {
    console.error('bench/importStall.mjs: out/ missing: run `node scripts/build.mjs --tests` first');
    process.exit(1);
  }
  const { writeBigAccessLog } = require(join(out, 'test/e2e/bigAccessLog.js'));
  const { AccessLogSession } = require(join(out, 'src/extension/endpoints/accessLogSession.js'));
  const { readLines } = require(join(out, 'src/node/lineReader.js'));
  const { AccessAnalyzer } = require(join(out, 'src/core/logs/accessAnalysis.js'));
  const { bufferDecoder } = require(join(out, 'src/node/accessLogFile.js'));
  const MODE = process.env.MODE ?? 'session';
  // session: as the editor reads (AccessLogSession.load); noyield: the same reader never yielding (how it read before slices)
  const load = MODE === 'noyield'
    ? async (p) => {
      const a = new AccessAnalyzer({ format: 'ltsv', decode: bufferDecoder });
      const r = await readLines(p, a.line, { sliceMs: Infinity, onLongLine: (n, l) => a.tooLong(n, l) });
      a.lines = r.lines;
      return a.finish();
    }
    : (p) => new AccessLogSession(p, { format: 'ltsv' }).load({ onProgress: () => undefined });
  const MB = Number(process.env.MB ?? 200);
  const RUNS = Number(process.env.RUNS ?? 3);
  const data = resolve(process.env.DATA_DIR ?? join(tmpdir(), 'qi-bench'));
  mkdirSync(data, { recursive: true });
  const path = join(data, `access_${MB}mb.ltsv`);
  if (!existsSync(path) || statSync(path).size < MB * 1e6) {
    const t = performance.now();
    const r = writeBigAccessLog(path, MB * 1e6);
    console.error(`# wrote ${path}: ${(r.bytes / 1e6).toFixed(0)} MB, ${r.lines} lines in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  console.log(`import of ${(statSync(path).size / 1e6).toFixed(0)} MB access log (LTSV), ${RUNS} runs, mode ${MODE}`);
  for (let run = 1; run <= RUNS; run++) {
    const child = fork(fileURLToPath(import.meta.url), ['--pinger'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (m) => { if (m && typeof m.ping === 'number') child.send({ pong: m.ping }); });
    const h = monitorEventLoopDelay({ resolution: 1 });
    let maxGap = 0;
    let last = performance.now();
    const gapTimer = setInterval(() => { const now = performance.now(); maxGap = Math.max(maxGap, now - last); last = now; }, 1);
    await new Promise((r) => setTimeout(r, 200));
    h.enable();
    maxGap = 0;
    last = performance.now();
    const t0 = performance.now();
    const report = await load(path);
    const ms = performance.now() - t0;
    // why: a loop held to the end shows its stall only when the next timer runs
    await new Promise((r) => setTimeout(r, 5));
    h.disable();
    clearInterval(gapTimer);
    // the answers still owed arrive now
    await new Promise((r) => setTimeout(r, 100));
    const rtts = await new Promise((r) => { child.on('message', (m) => { if (m && m.rtts) r(m.rtts); }); child.send('stop'); });
    child.kill();
    rtts.sort((a, b) => a - b);
    const q = (p) => rtts.length ? rtts[Math.min(rtts.length - 1, Math.floor(p * rtts.length))] : NaN;
    console.log(`run ${run}: ${report.requests} requests in ${(ms / 1000).toFixed(2)} s (${(statSync(path).size / 1e6 / (ms / 1000)).toFixed(0)} MB/s); `
      + `longest stall ${maxGap.toFixed(0)} ms (loop delay max ${(h.max / 1e6).toFixed(0)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(0)} ms); `
      + `IPC answers: ${rtts.length}, median ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${(rtts.at(-1) ?? NaN).toFixed(1)} ms`);
  }
}
