// The tests take free ports from the same helper as the benches.
export { freePort } from '../../tools/free-port.ts';
