// The practice's booking button as a React app, hydrated over the page's server-rendered markup. Plain JavaScript
// with createElement: it is bundled twice at test time (test/support/real-packages.ts), once against React 18 and once
// against React 19, through aliases of `react` and `react-dom`, which are installed only under versioned names.
import { createElement, useState } from 'react';
import { hydrateRoot } from 'react-dom/client';

function Booking() {
  const [count, setCount] = useState(0);
  // One string child: the server's markup then holds one text node, as React renders it.
  return createElement('button', { type: 'button', id: 'book', onClick: () => setCount(count + 1) }, `Booked ${count}`);
}

hydrateRoot(document.getElementById('root'), createElement(Booking));
