// Runs before the tests (see package.json "test"): the patient's browser tests also run in Firefox and WebKit, and
// this machine class cannot download browsers, so we find Debian's (firefox-esr; WebKitGTK's WebKitWebDriver and
// MiniBrowser, run on an Xvfb display), install them where we may, or stop with a message that says what to do.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const FIREFOX = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
const MINIBROWSERS = process.env.MINIBROWSER_PATH
  ? [process.env.MINIBROWSER_PATH]
  : ['/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser', '/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser'];

const onPath = (name) => {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const missing = () =>
  [
    !existsSync(FIREFOX) && 'Firefox ESR',
    !onPath('WebKitWebDriver') && 'WebKitWebDriver',
    !MINIBROWSERS.some((path) => existsSync(path)) && 'WebKitGTK MiniBrowser',
    !onPath('Xvfb') && 'Xvfb',
  ].filter(Boolean);

if (missing().length === 0) process.exit(0);

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = existsSync('/etc/debian_version');
if (isRoot && isDebian) {
  console.log(
    `${missing().join(', ')} not found: installing the Debian packages firefox-esr, webkit2gtk-driver and xvfb for the browser tests…`,
  );
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', 'firefox-esr', 'webkit2gtk-driver', 'xvfb'], {
      stdio: 'inherit',
      env,
    });
  } catch {
    fail('apt-get could not install them.');
  }
  if (missing().length === 0) process.exit(0);
  fail(`apt-get finished, but ${missing().join(', ')} is still missing.`);
}
fail(`${missing().join(', ')} not found.`);

function fail(why) {
  console.error(
    `${why}\nThe patient's browser tests run in Firefox and WebKit as well as Chromium. Debian/Ubuntu: ` +
      `sudo apt-get install firefox-esr webkit2gtk-driver xvfb. Elsewhere, set FIREFOX_PATH to a Firefox binary and ` +
      `MINIBROWSER_PATH to WebKitGTK's MiniBrowser, with WebKitWebDriver and Xvfb on the PATH.`,
  );
  process.exit(1);
}
