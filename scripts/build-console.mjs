// Builds the operator console (console/) into dist/ui with Vite, then writes a Brotli and a gzip
// copy beside each file, which the gateway sends to browsers that accept them (docs/console.md).
// Prints the size a browser downloads for a first load: every file, compressed.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build } from "vite";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = join(root, "dist", "ui");

await build({ configFile: join(root, "console", "vite.config.ts") });

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

let plain = 0;
let brotli = 0;
for (const file of files(out).filter((name) => /\.(html|js|css|svg|json)$/.test(name))) {
  const data = readFileSync(file);
  const br = brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
  writeFileSync(`${file}.br`, br);
  writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
  plain += statSync(file).size;
  brotli += br.length;
}
console.log(
  `console built in ${relative(root, out)}: ${(plain / 1024).toFixed(1)} KiB, ${(brotli / 1024).toFixed(1)} KiB with Brotli`,
);
