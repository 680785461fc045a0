// Host pages made of real third-party packages, installed from the npm registry at pinned versions (devDependencies
// only): the files each package publishes, served as they are at /vendor/NAME from the practice's own site, and the
// page's own checks that run before the tag (errors, console lines, and a record of the page's globals and
// built-in prototypes, to prove the widget changed none of them).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { builtAstroSite } from './astro-site-build.ts';
import { bundledReactApp } from './react-app-build.ts';

const NODE_MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));

/** Each file a page may load, by the name it is served under, and the installed file it is. */
const VENDOR_FILES = {
  'bootstrap.css': 'bootstrap/dist/css/bootstrap.min.css',
  'preflight.css': 'tailwindcss/preflight.css',
  'normalize.css': 'normalize.css/normalize.css',
  'mootools.js': 'mootools/lib/mootools-core-1.5.2-server.js',
  'zone.js': 'zone.js/bundles/zone.umd.js',
  'core-js.js': 'core-js-bundle/minified.js',
  'jquery.js': 'jquery/dist/jquery.min.js',
  // jQuery 3, installed under its own name (jquery is 1.12, WordPress's): the version Webflow's exports load.
  'jquery-3.js': 'jquery-3/dist/jquery.min.js',
  'turbo.js': '@hotwired/turbo/dist/turbo.es2017-umd.js',
  'htmx.js': 'htmx.org/dist/htmx.min.js',
  'swup.js': 'swup/dist/Swup.umd.js',
  'cookieconsent.js': 'vanilla-cookieconsent/dist/cookieconsent.umd.js',
  'cookieconsent.css': 'vanilla-cookieconsent/dist/cookieconsent.css',
} as const;

export type VendorFile = keyof typeof VENDOR_FILES;

const contentType = (name: string) =>
  name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';

export type Route = () => { body: string; headers?: Record<string, string> };

/** The routes that serve the named vendor files as published, at /vendor/NAME. */
export function vendorFileRoutes(names: readonly VendorFile[]): Record<string, Route> {
  const routes: Record<string, Route> = {};
  for (const name of names) {
    const body = readFileSync(NODE_MODULES + VENDOR_FILES[name], 'utf8');
    routes[`/vendor/${name}`] = () => ({ body, headers: { 'Content-Type': contentType(name) } });
  }
  return routes;
}

/** The routes that serve every vendor file, and the React app built against each React version. */
export async function vendorRoutes(): Promise<Record<string, Route>> {
  const routes = vendorFileRoutes(Object.keys(VENDOR_FILES) as VendorFile[]);
  // Partytown's files, where its snippet looks for them by default (its service worker's scope is that folder).
  for (const name of ['partytown.js', 'partytown-sw.js', 'partytown-atomics.js', 'partytown-media.js']) {
    const body = readFileSync(`${NODE_MODULES}@builder.io/partytown/lib/${name}`, 'utf8');
    routes[`/~partytown/${name}`] = () => ({ body, headers: { 'Content-Type': contentType(name) } });
  }
  const [react18, react19] = await Promise.all([bundledReactApp(18), bundledReactApp(19)]);
  routes['/vendor/react-18-app.js'] = () => ({ body: react18, headers: { 'Content-Type': contentType('.js') } });
  routes['/vendor/react-19-app.js'] = () => ({ body: react19, headers: { 'Content-Type': contentType('.js') } });
  return routes;
}

/**
 * test/support/astro-site built by Astro itself (`astro build`, the installed package's own toolchain, once per
 * installed Astro and site source: astro-site-build.ts), served as its output is: each page's HTML as Astro wrote it,
 * with `addToPage` (called as the page is served) putting what the test's page needs into it (the recorder in <head>,
 * the practice's tag before </body>), and Astro's bundled client router at /astro/_astro/.
 */
export async function astroSiteRoutes(addToPage: (html: string) => string): Promise<Record<string, Route>> {
  const dist = await builtAstroSite();
  const routes: Record<string, Route> = {};
  for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
    const path = `/astro/${relative(dist, join(dist, file)).split('\\').join('/')}`;
    if (path.endsWith('.html')) {
      const html = readFileSync(join(dist, file), 'utf8');
      const route: Route = () => ({ body: addToPage(html) });
      // Each page at its address with and without the slash, as Astro's own server answers (trailingSlash
      // 'ignore'): a folder's index.astro is built as the folder's name, .html.
      const page = path === '/astro/index.html' ? '/astro' : path.slice(0, -'.html'.length);
      routes[page] = route;
      routes[`${page}/`] = route;
    } else if (path.endsWith('.js')) {
      const body = readFileSync(join(dist, file), 'utf8');
      routes[path] = () => ({ body, headers: { 'Content-Type': contentType(path) } });
    }
  }
  return routes;
}

/**
 * The page's first script: the errors it raises, and every console.warn and console.error, read back from the DOM
 * (WebKit reports no console message in automation sessions); and pageShapeChanges(), which lists every global and
 * every own property of a built-in prototype that differs from when takePageShape() ran.
 */
export const PAGE_RECORDER = `<script>
window.pageErrors = []; window.lines = [];
addEventListener('error', (event) => pageErrors.push(String(event.message)));
addEventListener('unhandledrejection', (event) => pageErrors.push(String(event.reason)));
for (const level of ['warn', 'error']) {
  const write = console[level];
  console[level] = (...args) => { lines.push(level + ': ' + args.join(' ')); write.apply(console, args); };
}
(() => {
  const watched = () => ({
    window, Object: Object.prototype, Array: Array.prototype, Function: Function.prototype, String: String.prototype,
    Number: Number.prototype, Promise: Promise.prototype, RegExp: RegExp.prototype, Date: Date.prototype,
    Map: Map.prototype, Set: Set.prototype, JSON, Reflect, EventTarget: EventTarget.prototype, Node: Node.prototype,
    Element: Element.prototype, HTMLElement: HTMLElement.prototype, Document: Document.prototype,
    Window: Window.prototype, HTMLIFrameElement: HTMLIFrameElement.prototype,
    HTMLScriptElement: HTMLScriptElement.prototype, ShadowRoot: ShadowRoot.prototype, History: History.prototype,
    CustomElementRegistry: CustomElementRegistry.prototype, MutationObserver: MutationObserver.prototype,
    console,
  });
  // Frames show up as window[0], window[1]...: a frame is not a global a script set.
  const keys = (object) => Reflect.ownKeys(object).filter((key) => object !== window || !/^[0-9]+$/.test(String(key)));
  const shape = (object) => new Map(keys(object).map((key) => {
    const found = Object.getOwnPropertyDescriptor(object, key);
    return [key, found && ('value' in found ? found.value : [found.get, found.set])];
  }));
  const same = (a, b) => a === b || (Array.isArray(a) && Array.isArray(b) && a[0] === b[0] && a[1] === b[1])
    || (a !== a && b !== b);
  let before;
  // Once: a page that navigates by swapping its body runs the new body's scripts, this one among them.
  window.takePageShape = () => {
    if (!before) before = new Map(Object.entries(watched()).map(([name, object]) => [name, shape(object)]));
  };
  window.pageShapeChanges = () => {
    const changes = [];
    for (const [name, object] of Object.entries(watched())) {
      const then = before.get(name);
      const now = shape(object);
      for (const [key, value] of now) {
        if (!then.has(key)) changes.push(name + '.' + String(key) + ' added');
        // A global's plain value (a number, a string) may change as the page runs; a function or object swapped may not.
        else if (!same(then.get(key), value) && (object !== window || typeof value === 'object' || typeof value === 'function'))
          changes.push(name + '.' + String(key) + ' changed');
      }
      for (const key of then.keys()) if (!now.has(key)) changes.push(name + '.' + String(key) + ' removed');
    }
    return changes;
  };
})();
</script>`;

/** The one global the widget may add. */
export const WIDGET_GLOBALS = ['window.PracticeChat added'];

/** The tag as a practice pastes it, with the page's shape taken just before it. */
export const pastedTag = (relay: string, attributes = 'async') =>
  `<script>takePageShape();</script><script ${attributes} src="${relay}/loader.js" data-client-id="smile-dental"></script>`;

/** What a page says about itself once the widget has run: its errors, console lines, and changed globals. */
export interface PageReport {
  errors: string[];
  lines: string[];
  changes: string[];
}

/**
 * Globals the test's own browser driver puts in the page: puppeteer's ARIA query handlers in Firefox, WebKit's
 * WebDriver session symbol.
 */
const DRIVER_GLOBALS = /^window\.(__ariaQuerySelector(All)?|Symbol\(automationSessionProxy\)) added$/;

/** The report without what the test's browser driver itself added. */
export const withoutDriverGlobals = (report: PageReport): PageReport => ({
  ...report,
  changes: report.changes.filter((change) => !DRIVER_GLOBALS.test(change)),
});

/** Read in the page (as a function's source for any engine's evaluate). */
export function readPageReport(): PageReport {
  const page = window as unknown as { pageErrors: string[]; lines: string[]; pageShapeChanges: () => string[] };
  return { errors: page.pageErrors, lines: page.lines, changes: page.pageShapeChanges() };
}

/** The launcher's and the panel's boxes, and whether the launcher is what the page shows at its centre. */
export const boxes = (page: Page) =>
  page.evaluate(() => {
    const element = document.querySelector('practice-chat-q7x');
    const box = (node: Element | null | undefined) => {
      if (!node) return null;
      const { x, y, width, height } = node.getBoundingClientRect();
      return { x, y, width, height };
    };
    const button = element?.shadowRoot?.querySelector('button');
    const launcher = box(button);
    const atCentre =
      launcher && document.elementFromPoint(launcher.x + launcher.width / 2, launcher.y + launcher.height / 2);
    return {
      launcher,
      onTop: atCentre === element,
      panel: box(element?.shadowRoot?.querySelector('iframe')),
      viewport: { width: innerWidth, height: innerHeight },
    };
  });

export const inside = (
  box: { x: number; y: number; width: number; height: number },
  viewport: { width: number; height: number },
) => box.x >= 0 && box.y >= 0 && box.x + box.width <= viewport.width && box.y + box.height <= viewport.height;
