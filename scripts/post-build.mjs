// Marks the CLI entry executable after tsc, so `npm link` / the `bin` entry work without a wrapper.
import { chmodSync, existsSync } from "node:fs";

const entry = new URL("../dist/cli.js", import.meta.url);
if (existsSync(entry)) chmodSync(entry, 0o755);
