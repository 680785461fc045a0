// Build step (`npm run build`): a brotli (quality 11, the highest) and a gzip (level 9) copy beside every text file
// the relay serves from dist/ (loader.js, the frame's and the demo's assets), so that compressing costs nothing per
// request. The relay's static routes pick one by Accept-Encoding. A copy that would not be smaller is not written.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.argv[2] ?? 'dist';
const COMPRESSIBLE = /\.(?:js|mjs|css|svg|json|html|txt)$/;

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (COMPRESSIBLE.test(entry.name)) yield path;
  }
}

let count = 0;
for (const path of files(root)) {
  const plain = readFileSync(path);
  const br = brotliCompressSync(plain, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: plain.length,
    },
  });
  const gz = gzipSync(plain, { level: 9 });
  if (br.length < plain.length) writeFileSync(`${path}.br`, br);
  if (gz.length < plain.length) writeFileSync(`${path}.gz`, gz);
  count += 1;
}
console.log(`precompressed ${count} files under ${root}/ (brotli quality 11 and gzip)`);
