// Compiles src/ to dist/ (tsconfig.build.json), incrementally: tsc keeps what it knows in
// dist/.tsbuildinfo and rewrites only what changed. tsc does not notice an output deleted since the
// last build, so when a source file has no compiled file in dist/ the build starts afresh.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const src = join(root, "src");
const dist = join(root, "dist");

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

const missing = sources(src).some(
  (file) => !existsSync(join(dist, relative(src, file)).replace(/\.ts$/, ".js")),
);
if (missing) rmSync(join(dist, ".tsbuildinfo"), { force: true });

const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const result = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
});
if (result.status === 0) writeBuildInfo();
process.exit(result.status ?? 1);

/**
 * `dist/build-info.json`: the source revision the build was made from (`airlock_build_info`), from
 * `AIRLOCK_REVISION` when set (an image built without the repository), else the checkout's commit;
 * none when neither is known.
 */
function writeBuildInfo() {
  let revision = process.env.AIRLOCK_REVISION?.trim() || undefined;
  if (!revision) {
    const git = spawnSync("git", ["rev-parse", "HEAD"], { cwd: root, encoding: "utf8" });
    if (git.status === 0) revision = git.stdout.trim() || undefined;
  }
  writeFileSync(join(dist, "build-info.json"), `${JSON.stringify(revision ? { revision } : {})}\n`);
}
