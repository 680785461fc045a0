// The practice's page most browser tests embed the widget in: Smile Dental's home page, with the loader's tag as a
// practice pastes it. `tagAttributes` (each with a leading space) are added to the tag.
export const smileDentalPage = (relayOrigin: string, tagAttributes = '', lang = 'en'): string =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Smile Dental</title></head><body><main><h1>Smile Dental</h1></main>
<script async src="${relayOrigin}/loader.js" data-client-id="smile-dental"${tagAttributes}></script></body></html>`;
