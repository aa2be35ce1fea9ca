import { z } from "zod";
import { defineOperation } from "../operation.js";
import { notStartedFromFile } from "./config-file-unavailable.js";
import { refusingConfigPath } from "./config-path.js";

/**
 * Copies the configuration file named by `MCP_CONFIG` (or `./config.yaml`) beside itself as
 * `<config>.bak1`, older copies rotating to `.bak2` and beyond (spec 1 "Configuration"). Fails with
 * `ConfigFileUnavailableError` (503) saying why when the file cannot be read or its directory
 * written; the configuration file itself is never changed.
 */
export const backupConfig = defineOperation({
  name: "backup-config",
  kind: "command",
  summary: "Copy the configuration file to <config>.bak1, rotating older backups.",
  permissions: ["config:update"],
  input: refusingConfigPath(z.strictObject({})),
  async run({ configFiles, logger }) {
    if (!configFiles) throw notStartedFromFile();
    const path = await configFiles.backup();
    logger.info({ config_path: configFiles.path, backup_path: path }, "configuration file backed up");
    return { path };
  },
});
