/** The table of CLI commands; each command adds its one line here. */
import type { Command } from '../command';
import { adviseCommand } from './advise';
import { endpointsCommand } from './endpoints';
import { explainCommand } from './explain';
import { scanCommand } from './scan';
import { slowCommand } from './slow';

export const COMMANDS: Command[] = [
  adviseCommand,
  endpointsCommand,
  explainCommand,
  scanCommand,
  slowCommand,
];
