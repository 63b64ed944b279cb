/** The table of CLI commands; each command adds its one line here. */
import type { Command } from '../command';
import { adviseCommand } from './advise';
import { diffCommand } from './diff';
import { endpointsCommand } from './endpoints';
import { explainCommand } from './explain';
import { scanCommand } from './scan';
import { slowCommand } from './slow';

export const COMMANDS: Command[] = [
  adviseCommand,
  diffCommand,
  endpointsCommand,
  explainCommand,
  scanCommand,
  slowCommand,
];
