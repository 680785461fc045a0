// The staff page's style: explicit colours (contrast checked by axe-core in test/browser/staff-page.test.ts), a
// visible focus ring, no motion.
export const STAFF_PAGE_CSS = `
:root { color-scheme: light; font: 16px/1.5 system-ui, sans-serif; color: #1f2937; background: #f8fafc; }
body { margin: 0; }
header { padding: 1rem 1.5rem; background: #ffffff; border-bottom: 1px solid #cbd5e1; }
h1 { margin: 0 0 .25rem; font-size: 1.5rem; }
h2 { margin: 0 0 .5rem; font-size: 1.2rem; }
header p { margin: 0; max-width: 60rem; }
main { display: grid; grid-template-columns: minmax(16rem, 24rem) 1fr; gap: 1.5rem; padding: 1.5rem; }
@media (max-width: 48rem) { main { grid-template-columns: 1fr; } }
.list ul { list-style: none; margin: 0; padding: 0; display: grid; gap: .5rem; }
.list button { width: 100%; text-align: left; font: inherit; color: #1f2937; background: #ffffff; border: 1px solid #94a3b8; border-radius: .5rem; padding: .5rem .75rem; cursor: pointer; }
.list button[aria-current="true"] { border: 2px solid #1d4ed8; background: #eff6ff; }
.list .id { display: block; font-weight: 600; }
.list .facts { display: block; font-size: .9rem; color: #374151; }
.conversation { background: #ffffff; border: 1px solid #cbd5e1; border-radius: .5rem; padding: 1rem 1.25rem; min-width: 0; }
.meta { margin: 0 0 1rem; color: #374151; }
.log { margin: 0 0 1rem; max-height: 60vh; overflow-y: auto; }
.messages { list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem; }
.messages li { border-left: 4px solid #64748b; padding: .25rem .75rem; }
.messages li.visitor { border-color: #0f766e; }
.messages li.agent { border-color: #1d4ed8; }
.messages .author { font-weight: 600; }
.messages time { margin-left: .5rem; font-size: .85rem; color: #4b5563; }
.messages .text { margin: .25rem 0 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.reply label { display: block; font-weight: 600; margin-bottom: .25rem; }
.reply textarea { box-sizing: border-box; width: 100%; font: inherit; color: #1f2937; background: #ffffff; border: 1px solid #64748b; border-radius: .375rem; padding: .5rem; }
.actions { display: flex; gap: .75rem; margin-top: .5rem; flex-wrap: wrap; }
button { font: inherit; }
.actions button { border-radius: .375rem; padding: .5rem 1rem; cursor: pointer; border: 2px solid #1d4ed8; background: #1d4ed8; color: #ffffff; }
.actions button.secondary { background: #ffffff; color: #1d4ed8; }
.actions button:disabled { cursor: not-allowed; border-color: #6b7280; background: #e5e7eb; color: #374151; }
:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
.status { min-height: 1.5em; margin: .25rem 0; color: #374151; }
.status.error { color: #b91c1c; }
`;
