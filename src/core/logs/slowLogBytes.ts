/**
 * Byte-level helpers of the slow-log reader (slowLogParser.ts): prefix tests, numbers and the two
 * `# Time:` layouts, read straight from the line buffer without building strings. Every function is
 * linear in the bytes it is given and never throws.
 */

/** The bytes of an ASCII text, made once for the tests below (a string's char codes cost more to read per byte). */
export function bytesOf(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

export function startsWith(b: Uint8Array, s: number, e: number, prefix: Uint8Array): boolean {
  const n = prefix.length;
  if (e - s < n) return false;
  for (let i = 0; i < n; i++) if (b[s + i] !== prefix[i]) return false;
  return true;
}

export function endsWith(b: Uint8Array, s: number, e: number, suffix: Uint8Array): boolean {
  const n = suffix.length;
  if (e - s < n) return false;
  for (let i = 0; i < n; i++) if (b[e - n + i] !== suffix[i]) return false;
  return true;
}

export function lastIndexOf(b: Uint8Array, s: number, e: number, word: Uint8Array): number {
  for (let i = e - word.length; i >= s; i--) if (startsWith(b, i, e, word)) return i;
  return -1;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (no Date object on the hot path). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The unsigned decimal in b[s, s + n), or NaN when a byte is not a digit. */
function num(b: Uint8Array, s: number, n: number): number {
  let v = 0;
  for (let i = 0; i < n; i++) {
    const d = b[s + i] - 48;
    if (!(d >= 0 && d <= 9)) return NaN;
    v = v * 10 + d;
  }
  return v;
}

/** Where the digits decimalAt read last end. */
export let decimalEnd = 0;

/**
 * The number `digits[.digits]` starting at b[s], read up to the first byte that is not part of it (or
 * `e`); decimalEnd is set past it. NaN when no digit starts it.
 */
export function decimalAt(b: Uint8Array, s: number, e: number): number {
  let v = 0;
  let i = s;
  for (; i < e; i++) {
    const d = b[i] - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
  }
  if (i === s) return NaN;
  if (i < e && b[i] === 46) {
    let f = 0;
    let scale = 1;
    for (i++; i < e; i++) {
      const d = b[i] - 48;
      if (d < 0 || d > 9) break;
      // why: past 15 fraction digits the value no longer changes, and scale would overflow to Infinity.
      if (scale < 1e15) { f = f * 10 + d; scale *= 10; }
    }
    v += f / scale;
  }
  decimalEnd = i;
  return v;
}

/** Parses a decimal number `[-]digits[.digits]` in b[s, e); NaN if it is not one (no exponent, no sign but `-`). */
export function parseDecimal(b: Uint8Array, s: number, e: number): number {
  if (s >= e) return NaN;
  const neg = b[s] === 45;
  const v = decimalAt(b, neg ? s + 1 : s, e);
  if (v !== v || decimalEnd !== e) return NaN;
  return neg ? -v : v;
}

export function yesNo(b: Uint8Array, s: number, e: number): boolean | undefined {
  if (e - s === 3 && b[s] === 89) return true;   // Yes
  if (e - s === 2 && b[s] === 78) return false;  // No
  return undefined;
}

/**
 * A `# Time:` value read: epoch ms, and whether it had sub-second resolution and the legacy layout;
 * and the ISO time's date and hour read last (`hourBytes`, the 13 bytes `YYYY-MM-DDTHH`, when
 * `hourMs` is not NaN), which the next entries of a log nearly always repeat.
 */
export interface HeaderTime { ms: number; precise: boolean; legacy: boolean; hourBytes: Uint8Array; hourMs: number }

/** A HeaderTime to read into (one per reader: parseHeaderTime runs once per entry). */
export function headerTime(): HeaderTime { return { ms: 0, precise: false, legacy: false, hourBytes: new Uint8Array(13), hourMs: NaN }; }

/**
 * The epoch ms of the date and hour of the ISO time at b[s] (its first 13 bytes, `YYYY-MM-DDTHH`),
 * NaN when they name no valid date and hour; the last one read is remembered in `t`.
 */
function isoHour(b: Uint8Array, s: number, t: HeaderTime): number {
  const hb = t.hourBytes;
  if (t.hourMs === t.hourMs) {
    let i = 0;
    while (i < 13 && b[s + i] === hb[i]) i++;
    if (i === 13) return t.hourMs;
  }
  const mo = num(b, s + 5, 2), d = num(b, s + 8, 2), h = num(b, s + 11, 2);
  const y = num(b, s, 4);
  if (!(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 23) || !(y >= 0)) return NaN;
  const ms = daysFromCivil(y, mo, d) * 86400000 + h * 3600000;
  for (let i = 0; i < 13; i++) hb[i] = b[s + i];
  t.hourMs = ms;
  return ms;
}

function validClock(mo: number, d: number, h: number, mi: number, sec: number): boolean {
  return mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h >= 0 && h <= 23 && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 60;
}

/**
 * `# Time:` value in b[s, e): ISO (MySQL 5.7+, `2023-11-14T22:13:20.123456Z` or with `+09:00`) or
 * `YYMMDD H:MM:SS` (MariaDB, MySQL ≤ 5.6; the hour may be space-padded), read into `t`. False when it
 * is neither, or names an impossible date or clock time.
 */
export function parseHeaderTime(b: Uint8Array, s: number, e: number, t: HeaderTime): boolean {
  while (s < e && b[s] === 32) s++;
  if (e - s >= 19 && b[s + 4] === 45 && b[s + 10] === 84) {
    // why: a log's entries share the date and hour of the one before; only the minutes on are read per entry.
    const hour = isoHour(b, s, t);
    const mi = num(b, s + 14, 2), sec = num(b, s + 17, 2);
    if (!(hour === hour && mi >= 0 && mi <= 59 && sec >= 0 && sec <= 60)) return false;
    let ms = hour + mi * 60000 + sec * 1000;
    let i = s + 19;
    if (b[i] === 46) {
      let f = 0; let scale = 1;
      for (i++; i < e && b[i] >= 48 && b[i] <= 57; i++) if (scale < 1e9) { f = f * 10 + (b[i] - 48); scale *= 10; }
      ms += (f / scale) * 1000;
    }
    if (i < e && (b[i] === 43 || b[i] === 45) && e - i >= 6) {
      // why: with log_timestamps=SYSTEM MySQL writes the local offset (`+09:00`); normalize to UTC.
      const off = num(b, i + 1, 2) * 3600000 + num(b, i + 4, 2) * 60000;
      if (Number.isNaN(off)) return false;
      ms += b[i] === 43 ? -off : off;
    }
    t.ms = ms; t.precise = true; t.legacy = false;
    return true;
  }
  if (e - s >= 13 && b[s + 6] === 32) {
    let i = s + 7;
    while (i < e && b[i] === 32) i++;
    const c1 = b.indexOf(58, i);
    if (c1 > i && c1 <= i + 2 && c1 + 6 <= e && b[c1 + 3] === 58) {
      const mo = num(b, s + 2, 2), d = num(b, s + 4, 2), h = num(b, i, c1 - i), mi = num(b, c1 + 1, 2), sec = num(b, c1 + 4, 2);
      const y = num(b, s, 2);
      if (validClock(mo, d, h, mi, sec) && y >= 0) {
        t.ms = daysFromCivil(2000 + y, mo, d) * 86400000 + h * 3600000 + mi * 60000 + sec * 1000; t.precise = false; t.legacy = true;
        return true;
      }
    }
  }
  return false;
}

