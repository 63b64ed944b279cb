/** The table of CLI commands; each command adds its one line here. */
import type { Command } from '../command';

export const COMMANDS: Command[] = [
];
