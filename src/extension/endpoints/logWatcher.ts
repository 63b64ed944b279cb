/**
 * Watches one log file for changes with node's fs.watch on its directory (so a rotated or
 * re-created file is seen too; it also works outside the workspace, e.g. /var/log/nginx), and calls
 * back once the writes have paused for `debounceMs`.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

export class LogWatcher {
  private watcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly path: string, private readonly debounceMs: number, private readonly onChange: () => void,
    private readonly onError: (err: unknown) => void) {}

  start(): void {
    const name = basename(this.path);
    this.watcher = watch(dirname(this.path), { persistent: false }, (_event, file) => {
      // why: some platforms report no file name; then any change in the directory counts.
      if (file && file.toString() !== name) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.onChange(), this.debounceMs);
    });
    this.watcher.on('error', (err) => this.onError(err));
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.watcher?.close();
    this.watcher = undefined;
  }
}
