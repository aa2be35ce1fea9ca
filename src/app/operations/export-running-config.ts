import { z } from "zod";
import { redactSecrets } from "../config-state/redact-secrets.js";
import { runningDocument } from "../config-state/running-document.js";
import { defineOperation } from "../operation.js";
import { notStartedFromFile } from "./config-file-unavailable.js";
import { refusingConfigPath } from "./config-path.js";

/**
 * The in-memory state as configuration YAML (spec 1 "Configuration", `POST /config/export`): the
 * configuration document running now plus the servers and groups registered through REST (see
 * `runningDocument` for what is and is not included), secrets replaced by `[redacted]`. The text
 * passes `airlock config check`; put the secrets back before running it.
 */
export const exportRunningConfig = defineOperation({
  name: "export-config",
  kind: "query",
  summary: "The in-memory configuration (file and REST registrations) as YAML, secrets redacted.",
  permissions: ["config:read"],
  input: refusingConfigPath(z.strictObject({})),
  async run({ configFiles, runningConfig, fleet, groups }) {
    if (!configFiles || !runningConfig) throw notStartedFromFile();
    const document = runningDocument(runningConfig.document(), fleet, groups);
    return { yaml: configFiles.format(redactSecrets(document)) };
  },
});
