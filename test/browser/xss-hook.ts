// The hook every XSS payload calls, and the record of its calls: installed in every document of a context, before
// any of its scripts (`context.addInitScript(recordXssCalls)`), so a payload that runs anywhere is counted.
export function recordXssCalls() {
  const hits: unknown[] = [];
  Object.defineProperty(window, '__xssHits', { value: hits });
  Object.defineProperty(window, '__xss', { value: (index: unknown) => hits.push(index) });
}
