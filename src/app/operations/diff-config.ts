import { z } from "zod";
import { redactSecrets } from "../config-state/redact-secrets.js";
import { runningDocument } from "../config-state/running-document.js";
import { defineOperation } from "../operation.js";
import { notStartedFromFile } from "./config-file-unavailable.js";

/**
 * Compares the configuration file named by `MCP_CONFIG` (or `./config.yaml`) with the in-memory
 * state that `POST /config/export` shows (spec 1 "Configuration"). `on_disk` and `in_memory` are
 * both documents as YAML text in one normalised form (comments and layout of the file are not
 * compared), secrets redacted; `diff` is a unified diff from `on_disk` to `in_memory`. `has_diff`
 * compares the same normalised text with secrets in clear: a secret that differs shows in
 * `in_memory` as `[redacted, differs]`. A file that cannot be read answers `ConfigFileUnavailableError` (503).
 */
export const diffConfig = defineOperation({
  name: "diff-config",
  kind: "query",
  summary: "Differences between the configuration file on disk and the in-memory configuration.",
  permissions: ["config:read"],
  input: z.strictObject({}),
  async run({ configFiles, runningConfig, fleet, groups }) {
    if (!configFiles || !runningConfig) throw notStartedFromFile();
    const onDisk = (await configFiles.readDocument()) ?? {};
    const inMemory = runningDocument(runningConfig.document(), fleet, groups);
    const onDiskText = configFiles.format(redactSecrets(onDisk));
    const inMemoryText = configFiles.format(redactSecrets(inMemory, onDisk));
    return {
      // Compared with secrets in clear, so a changed secret counts; never shown.
      has_diff: configFiles.format(onDisk) !== configFiles.format(inMemory),
      diff: configFiles.unifiedDiff(onDiskText, inMemoryText, { before: "on_disk", after: "in_memory" }),
      on_disk: onDiskText,
      in_memory: inMemoryText,
    };
  },
});
