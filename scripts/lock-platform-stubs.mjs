// Adds lock-file entries for optional, platform-specific packages that the package registry
// reachable here does not serve (for example the macOS and Windows builds of biome).
// `npm install` skips such packages silently, but `npm ci` then refuses the lock file as out of
// sync. Each stub names the platform it is for, so `npm ci` skips it on every other platform, as
// it would the real entry. Run after any change to package-lock.json:
//   node scripts/lock-platform-stubs.mjs
import { readFileSync, writeFileSync } from "node:fs";

const LOCK = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(LOCK, "utf8"));
const packages = lock.packages;

const OS = ["android", "darwin", "linux", "win32", "freebsd"];
const CPU = ["arm64", "x64", "arm", "ia32"];

/** Platform fields from a package name such as `@biomejs/cli-linux-x64-musl`. */
function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  if (!os || !cpu) return null;
  return { os: [os], cpu: [cpu], ...(parts.includes("musl") && { libc: ["musl"] }) };
}

let added = 0;
for (const [path, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `${path ? `${path}/` : ""}node_modules/${name}`;
    const hoisted = `node_modules/${name}`;
    if (packages[key] || packages[hoisted]) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    packages[hoisted] = { version, ...platform, ...(entry.dev && { dev: true }), optional: true };
    added++;
  }
}

const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
);
lock.packages = sorted;
writeFileSync(LOCK, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock file: ${added} platform stub(s) added`);
