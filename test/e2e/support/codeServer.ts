/** The e2e tests' code-server launcher; it lives in src/node so that `npm run demo` starts code-server the same way. */
export * from '../../../src/node/codeServer';
