// Runs before the tests (see package.json "test"): some tests drive real programs rather than mocks of them, so we
// find each one, install Debian's package where we may (as root on Debian), or stop with a message that says what
// to do. Each that names an environment variable can be pointed elsewhere with it.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

const TOOLS = [
  {
    name: 'redis-server',
    variable: 'REDIS_SERVER_PATH',
    path: '/usr/bin/redis-server',
    debianPackage: 'redis-server',
    why: 'The shared-state tests need a real Redis server (or valkey-server).',
  },
  {
    // Debian's redis-sentinel package holds a link to the redis-server binary, which runs as a Sentinel when called by
    // this name (or with --sentinel); the package is what puts the link there.
    name: 'redis-sentinel',
    variable: 'REDIS_SENTINEL_PATH',
    path: '/usr/bin/redis-sentinel',
    debianPackage: 'redis-sentinel',
    why: 'The failover test runs a primary, a replica and three real Sentinels.',
  },
  {
    name: 'promtool',
    variable: 'PROMTOOL_PATH',
    path: '/usr/bin/promtool',
    debianPackage: 'prometheus',
    why: "The metrics tests check the relay's metrics and alert rules with Prometheus' promtool.",
  },
  {
    // The screen-reader test (test/screen-reader/orca.test.ts) runs Orca over AT-SPI in a D-Bus session on an Xvfb
    // display (Xvfb comes with the browser engines: test/browser/ensure-engines.mjs).
    name: 'orca',
    path: '/usr/bin/orca',
    debianPackage: 'orca',
    why: 'The screen-reader test hears what Orca, a real screen reader, says through a conversation.',
  },
  {
    name: 'at-spi-bus-launcher',
    path: '/usr/libexec/at-spi-bus-launcher',
    debianPackage: 'at-spi2-core',
    why: 'The screen-reader test starts the accessibility bus through which Chromium tells Orca what the page shows.',
  },
  {
    name: 'dbus-launch',
    path: '/usr/bin/dbus-launch',
    debianPackage: 'dbus-x11',
    why: 'The screen-reader test starts a D-Bus session of its own for Orca and Chromium.',
  },
  {
    name: 'nginx',
    variable: 'NGINX_PATH',
    path: '/usr/sbin/nginx',
    debianPackage: 'nginx',
    why: 'The deployment tests put the shipped nginx configuration in front of two relays.',
  },
];

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const isDebian = existsSync('/etc/debian_version');
const missing = [];

for (const tool of TOOLS) {
  const fromEnv = tool.variable && process.env[tool.variable];
  if (fromEnv) {
    if (!existsSync(fromEnv)) fail(`${tool.variable} is set to ${fromEnv}, but there is no file there.`, tool);
    continue;
  }
  if (!existsSync(tool.path)) missing.push(tool);
}

if (missing.length > 0) {
  if (!(isRoot && isDebian)) fail(`No ${missing[0].name} found.`, missing[0]);
  const packages = missing.map((tool) => tool.debianPackage);
  console.log(
    `${missing.map((tool) => tool.name).join(', ')} not found: installing the Debian package(s) ${packages.join(', ')} for the tests…`,
  );
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...packages], {
      stdio: 'inherit',
      env,
    });
  } catch {
    fail(`apt-get could not install ${packages.join(', ')}.`, missing[0]);
  }
  for (const tool of missing)
    if (!existsSync(tool.path)) fail(`apt-get finished, but ${tool.path} is still missing.`, tool);
}

// Fonts: the locale tests fail when a glyph of a catalog has no font (test/browser/locale-drawing.test.ts). Debian's
// base fonts cover the Latin, Cyrillic, Arabic and Vietnamese catalogs; Korean, Japanese and Chinese need a CJK font.
const FONTS = { debianPackage: 'fonts-noto-cjk', languages: ['ko', 'ja', 'zh-cn', 'zh-tw'] };
const fontless = () =>
  FONTS.languages.filter((language) => {
    try {
      return execFileSync('fc-list', [`:lang=${language}`, 'family'], { encoding: 'utf8' }).trim() === '';
    } catch {
      return true;
    }
  });
if (fontless().length > 0) {
  const why = `No font for ${fontless().join(', ')}: the locale tests would see missing-glyph boxes.`;
  if (!(isRoot && isDebian)) failFonts(why);
  console.log(`${why} Installing the Debian package ${FONTS.debianPackage} for the tests…`);
  try {
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', FONTS.debianPackage], {
      stdio: 'inherit',
      env,
    });
  } catch {
    failFonts(`apt-get could not install ${FONTS.debianPackage}.`);
  }
  if (fontless().length > 0)
    failFonts(`apt-get finished, but fontconfig still has no font for ${fontless().join(', ')}.`);
}

function failFonts(why) {
  console.error(
    `${why}\nInstall a CJK font that fontconfig finds (Debian/Ubuntu: sudo apt-get install ${FONTS.debianPackage}).`,
  );
  process.exit(1);
}

function fail(why, tool) {
  console.error(
    `${why}\n${tool.why} ${tool.variable ? `Either set ${tool.variable} to a ${tool.name} binary, or install one` : 'Install it'} ` +
      `(Debian/Ubuntu: sudo apt-get install ${tool.debianPackage}).`,
  );
  process.exit(1);
}
