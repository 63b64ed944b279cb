/** Requests per handler from an access log's endpoint figures, for CPU per request. */

/** An endpoint row of an access-log report, as far as counting goes. */
export interface CountedEndpoint { method: string; uri: string; kind: string; count: number }

/**
 * The requests an access log counted for a handler's routes: the endpoints grouped by one of
 * those routes (same pattern; same method, or any for an `ANY` route). Undefined when none.
 */
export function requestsByRoutes(endpoints: readonly CountedEndpoint[], routes: readonly { method: string; pattern: string }[]): number | undefined {
  let n = 0;
  let found = false;
  for (const e of endpoints) {
    if (e.kind !== 'route') continue;
    if (!routes.some((r) => r.pattern === e.uri && (r.method === 'ANY' || r.method === e.method))) continue;
    n += e.count;
    found = true;
  }
  return found ? n : undefined;
}
