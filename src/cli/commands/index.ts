/** The table of CLI commands; each command adds its one line here. */
import type { Command } from '../command';
import { scanCommand } from './scan';

export const COMMANDS: Command[] = [
  scanCommand,
];
