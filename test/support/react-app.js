// The practice's booking button as a React app, hydrated over the page's server-rendered markup. Plain JavaScript
// with createElement: it is bundled twice at test time (test/support/real-packages.ts), once against React 18 and once
// against React 19, through aliases of `react` and `react-dom`, which are installed only under versioned names.
//
// By default it hydrates <div id="root">. With data-root="document" on its script it hydrates the whole document, as
// Next.js's App Router does, once the element named by data-after is in the page: an app whose code arrives after the
// widget has put its launcher in <html>.
import { createElement, useState } from 'react';
import { hydrateRoot } from 'react-dom/client';

function Booking() {
  const [count, setCount] = useState(0);
  // One string child: the server's markup then holds one text node, as React renders it.
  return createElement('button', { type: 'button', id: 'book', onClick: () => setCount(count + 1) }, `Booked ${count}`);
}

/** The document as the server rendered it; what the page adds after these (its scripts) is not React's. */
const Page = () =>
  createElement(
    'html',
    { lang: 'en' },
    createElement(
      'head',
      null,
      createElement('meta', { charSet: 'utf-8' }),
      createElement('title', null, 'Smile Dental'),
    ),
    createElement(
      'body',
      null,
      createElement('main', null, createElement('h1', null, 'Smile Dental'), createElement(Booking)),
    ),
  );

const { root, after } = document.currentScript.dataset;
if (root !== 'document') hydrateRoot(document.getElementById('root'), createElement(Booking));
else {
  const start = () => {
    if (!document.querySelector(after)) return setTimeout(start, 20);
    hydrateRoot(document, createElement(Page));
  };
  start();
}
