// Free of vitest, like ports.ts: the test run's global setup and the benches load it outside a test file.
export { natsUrl } from '@munim/bus/testing';
export { canConnect, localAdminUrl } from '@munim/db/testing';
