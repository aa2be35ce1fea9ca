import { NodeHasher } from "../adapters/system/node-hasher.js";
import { NodeIdGenerator } from "../adapters/system/node-ids.js";
import { SystemClock } from "../adapters/system/system-clock.js";
import { principalId } from "../app/operations/auth/fields.js";
import { issueApiKey } from "../app/operations/auth/issue-api-key.js";
import type { StoreRepositories } from "../app/ports/store-repositories.js";
import { GLOBAL_SCOPE } from "../domain/auth/scope.js";
import { loadOrReport } from "./load-or-report.js";
import { openLoggerOrReport } from "./open-logger.js";
import { openStorage, type Storage } from "./open-storage.js";

export interface BootstrapAdminOptions {
  configPath?: string | undefined;
  /** The principal that becomes admin. */
  principal: string;
  /** Name of the API key created for it. */
  keyName: string;
  /** Create the principal's API key and print it (once) on stdout. */
  showKey: boolean;
}

/** Recorded as `created_by` / `assigned_by`: no authenticated caller exists yet. */
export const BOOTSTRAP_ACTOR = "bootstrap-admin";
const ADMIN_ROLE = "admin";

/**
 * Serializes claims of processes sharing the database; long enough for one claim (a few writes),
 * short enough that a claim that crashed holds nothing for long.
 */
const CLAIM_LEASE = "auth-bootstrap-admin";
const CLAIM_LEASE_TTL_S = 60;

/**
 * `airlock auth bootstrap-admin` (spec 2 §5 "First admin"): `/auth/**` needs an admin with no
 * carve-out, so the first admin comes from here. It needs durable storage (`auth.storage.driver`
 * sqlite or postgresql; memory is refused, as anything written would vanish with the process) and
 * claims the admin role once: while any principal holds admin at global scope through a stored
 * assignment, it refuses. It creates an API key for the principal (with `--show-key`, required when
 * OIDC is off since the key is then the only way in) and the global admin assignment. The raw key is
 * the only thing written to stdout; everything else goes to stderr. Returns the exit code.
 */
export async function runBootstrapAdmin(options: BootstrapAdminOptions): Promise<number> {
  const loaded = loadOrReport({ cliPath: options.configPath });
  if (!loaded) return 1;
  const { config } = loaded;
  const principal = principalId().safeParse(options.principal);
  if (!principal.success) {
    return fail(`--principal ${principal.error.issues[0]?.message ?? "is invalid"}`);
  }
  const keyName = options.keyName.trim();
  if (keyName === "" || keyName.length > 256) {
    return fail("--key-name must be a non-empty string of at most 256 characters");
  }
  if (config.auth.storage.driver === "memory") {
    return fail(
      "auth bootstrap-admin needs durable storage, and auth.storage.driver is memory (nothing would " +
        "outlive this command): set persistence.backend (or auth.storage.driver) to sqlite or postgresql",
    );
  }
  if (!config.auth.oidc.enabled && !options.showKey) {
    return fail(
      "--show-key is required: OIDC is off (auth.oidc.enabled is false), so the admin's API key is " +
        "the only way to sign in, and it is shown only once",
    );
  }
  if (options.showKey && !config.auth.api_key.enabled) {
    process.stderr.write(
      "warning: auth.api_key.enabled is false: the key authenticates nobody until API keys are enabled\n",
    );
  }
  if (!config.auth.enabled) {
    process.stderr.write(
      "warning: auth.enabled is false: the admin takes effect once authentication is on\n",
    );
  }

  // Stdout carries the key alone.
  const logger = openLoggerOrReport(config.logging, "stderr");
  if (!logger) return 1;
  let storage: Storage;
  try {
    storage = await openStorage(config, logger);
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  try {
    if (storage.degraded || !storage.repositories.durable) {
      return fail(
        `auth bootstrap-admin needs durable storage; ${storage.description} is in use` +
          (storage.degraded ? ` (${storage.degraded.reason})` : ""),
      );
    }
    return await claim(storage.repositories, principal.data, { ...options, keyName });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  } finally {
    await storage.close().catch(() => undefined);
  }
}

async function claim(
  repositories: StoreRepositories,
  principal: string,
  options: BootstrapAdminOptions,
): Promise<number> {
  const ids = new NodeIdGenerator();
  const clock = new SystemClock();
  const holder = `${BOOTSTRAP_ACTOR}-${ids.uuid()}`;
  const lease = await repositories.lease.acquire(CLAIM_LEASE, holder, CLAIM_LEASE_TTL_S);
  if (!lease.acquired) return fail("another auth bootstrap-admin is running against this storage; try again");
  try {
    const existing = await existingAdmin(repositories);
    if (existing !== null) {
      return fail(
        `refused: principal '${existing}' already holds the admin role (the first admin is claimed once); ` +
          "sign in as that admin and use /api/auth to create keys and assign roles",
      );
    }
    let key: { key_id: string; raw_key: string } | null = null;
    if (options.showKey) {
      const issued = await issueApiKey(
        { apiKeys: repositories.apiKeys, ids, hasher: new NodeHasher(), clock },
        { principal_id: principal, name: options.keyName, expires_at: null, created_by: BOOTSTRAP_ACTOR },
      );
      key = { key_id: issued.record.key_id, raw_key: issued.raw_key };
    }
    try {
      await repositories.roleAssignments.assign({
        principal_id: principal,
        role_name: ADMIN_ROLE,
        scope: GLOBAL_SCOPE,
        assigned_by: BOOTSTRAP_ACTOR,
        assigned_at: clock.now() / 1000,
      });
    } catch (error) {
      // Without the assignment the key grants nothing; it is not left behind usable either.
      if (key) {
        await repositories.apiKeys
          .revoke(key.key_id, {
            revoked_by: BOOTSTRAP_ACTOR,
            reason: "bootstrap failed",
            at: clock.now() / 1000,
          })
          .catch(() => undefined);
      }
      throw error;
    }
    process.stderr.write(`admin role granted to principal '${principal}' (scope ${GLOBAL_SCOPE})\n`);
    if (key) {
      process.stderr.write(
        `API key ${key.key_id} created for '${principal}'; it is printed below once and cannot be shown again\n`,
      );
      process.stdout.write(`${key.raw_key}\n`);
    } else {
      process.stderr.write(`no API key created (without --show-key); '${principal}' signs in through OIDC\n`);
    }
    return 0;
  } finally {
    await repositories.lease.release(CLAIM_LEASE, holder, lease.lease.generation).catch(() => false);
  }
}

/** A principal holding the admin role at global scope through a stored assignment, or null. */
async function existingAdmin(repositories: StoreRepositories): Promise<string | null> {
  for (const principal of await repositories.roleAssignments.listPrincipals()) {
    const global = await repositories.roleAssignments.listByPrincipal(principal, GLOBAL_SCOPE);
    if (global.some((assignment) => assignment.role_name === ADMIN_ROLE)) return principal;
  }
  return null;
}

function fail(message: string): number {
  process.stderr.write(`error: ${message}\n`);
  return 1;
}
