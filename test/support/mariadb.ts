/** The private MariaDB of the integration and e2e tests; it lives in src/node so that the demo starts the same server. */
export * from '../../src/node/privateMariaDb';
