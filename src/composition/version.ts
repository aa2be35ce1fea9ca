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
