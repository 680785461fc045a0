// The tests take free ports from the same helper as the benches.
export { freePort, freePorts } from '../../tools/free-port.ts';
