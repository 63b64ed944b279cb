/** A free TCP port on loopback, for the private servers the tests and the demo start. */
import { createServer } from 'node:net';

/** Asks the kernel for a free port on 127.0.0.1 and releases it at once. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
