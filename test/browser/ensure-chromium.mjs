// Runs before the tests (see package.json "test"): the browser tests drive a real Chromium, and this machine class
// cannot download one, so we find Debian's, install it where we may, or stop with a message that says what to do.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const DEFAULT_PATH = '/usr/bin/chromium';
const fromEnv = process.env.CHROME_PATH;

if (fromEnv) {
  if (!existsSync(fromEnv)) fail(`CHROME_PATH is set to ${fromEnv}, but there is no file there.`);
  process.exit(0);
}
if (existsSync(DEFAULT_PATH)) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = existsSync('/etc/debian_version');
if (isRoot && isDebian) {
  console.log('Chromium not found: installing the Debian "chromium" package for the browser tests…');
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env });
  } catch {
    fail('apt-get could not install chromium.');
  }
  if (existsSync(DEFAULT_PATH)) process.exit(0);
  fail(`apt-get finished, but ${DEFAULT_PATH} is still missing.`);
}
fail('No Chromium found.');

function fail(why) {
  console.error(
    `${why}\nThe browser tests need Chromium. Either set CHROME_PATH to a Chromium or Chrome binary, ` +
      `or install one (Debian/Ubuntu: sudo apt-get install chromium).`,
  );
  process.exit(1);
}
