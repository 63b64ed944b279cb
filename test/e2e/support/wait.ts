/** Polling with a timeout: the only way e2e tests wait (never a fixed sleep). */

export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000, everyMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
