import { readFileSync } from "node:fs";

/** The running release, from the package manifest shipped beside `dist/`. */
export const VERSION: string = (() => {
  try {
    const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: string;
    };
    return manifest.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
})();

/**
 * The source revision of this build, from `dist/build-info.json` written by the build; undefined
 * when running from the sources or when the build did not know it.
 */
export const REVISION: string | undefined = (() => {
  try {
    const info = JSON.parse(readFileSync(new URL("../build-info.json", import.meta.url), "utf8")) as {
      revision?: unknown;
    };
    return typeof info.revision === "string" && info.revision !== "" ? info.revision : undefined;
  } catch {
    return undefined;
  }
})();
