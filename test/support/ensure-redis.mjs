// Runs before the tests (see package.json "test"): the shared-state tests run a real redis-server (no mock of Redis),
// so we find one, install Debian's where we may, or stop with a message that says what to do.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const DEFAULT_PATH = '/usr/bin/redis-server';
const fromEnv = process.env.REDIS_SERVER_PATH;

if (fromEnv) {
  if (!existsSync(fromEnv)) fail(`REDIS_SERVER_PATH is set to ${fromEnv}, but there is no file there.`);
  process.exit(0);
}
if (existsSync(DEFAULT_PATH)) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = existsSync('/etc/debian_version');
if (isRoot && isDebian) {
  console.log('redis-server not found: installing the Debian "redis-server" package for the shared-state tests…');
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'redis-server'], { stdio: 'inherit', env });
  } catch {
    fail('apt-get could not install redis-server.');
  }
  if (existsSync(DEFAULT_PATH)) process.exit(0);
  fail(`apt-get finished, but ${DEFAULT_PATH} is still missing.`);
}
fail('No redis-server found.');

function fail(why) {
  console.error(
    `${why}\nThe shared-state tests need a real Redis server. Either set REDIS_SERVER_PATH to a redis-server (or ` +
      `valkey-server) binary, or install one (Debian/Ubuntu: sudo apt-get install redis-server).`,
  );
  process.exit(1);
}
