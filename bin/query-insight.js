#!/usr/bin/env node
'use strict';
// why: the CLI is bundled by esbuild into dist/cli.js; this shim keeps `bin` stable.
require('../dist/cli.js');
