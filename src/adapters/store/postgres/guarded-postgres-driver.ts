import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  PostgresDialect,
  type QueryResult,
  type TransactionSettings,
} from "kysely";
import type pg from "pg";
import type { StoreOutcomes } from "../../../app/ports/store-availability.js";
import { storeUnavailable } from "../../../domain/errors.js";
import { connectionFailure } from "./connection-failure.js";

/**
 * What a caller is told to wait before retrying a call the database could not serve: a restart or
 * failover of PostgreSQL takes seconds, and the tracker probes every second while it is away.
 */
export const DATABASE_RETRY_AFTER_S = 2;

export interface GuardedDriverOptions {
  pool: pg.Pool;
  /** Told of every query's outcome (reachable or not); absent: nobody tracks availability. */
  outcomes?: StoreOutcomes;
  /** Read at each query, so that the store can arm them once it is open and migrated. */
  settings: GuardSettings;
}

export interface GuardSettings {
  /**
   * Longest wait for one statement's answer, in ms (0: none). A connection whose statement timed
   * out is discarded, not reused.
   */
  queryTimeoutMs: number;
  /**
   * Whether availability failures become StoreUnavailableError and are reported; off while the
   * store opens, so that a refused start names the driver's own reason.
   */
  guard: boolean;
}

/**
 * Kysely's PostgreSQL dialect with a driver of our own: a query that fails because the database
 * cannot be reached rejects with `StoreUnavailableError` (the driver's message stays in `cause`,
 * for logs only) and the connection is dropped from the pool rather than reused; an ordinary SQL
 * error is rethrown as it is. Every outcome is reported to `outcomes`.
 */
export class GuardedPostgresDialect extends PostgresDialect {
  constructor(private readonly options: GuardedDriverOptions) {
    super({ pool: options.pool });
  }

  override createDriver(): Driver {
    return new GuardedPostgresDriver(this.options);
  }
}

class GuardedPostgresDriver implements Driver {
  private ended = false;

  constructor(private readonly options: GuardedDriverOptions) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    if (this.ended) throw new Error("the database pool is closed");
    let client: pg.PoolClient;
    try {
      client = await this.options.pool.connect();
    } catch (error) {
      throw this.translate(error);
    }
    return new GuardedConnection(client, this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let statement = "start transaction";
    if (settings.isolationLevel) statement += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) statement += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(statement));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("commit"));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw("rollback"));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as GuardedConnection).release();
  }

  async destroy(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.options.pool.end();
  }

  /** Counts the outcome and turns an availability failure into `StoreUnavailableError`. */
  translate(error: unknown): unknown {
    if (!this.options.settings.guard) return error;
    const failure = connectionFailure(error);
    if (failure === null) {
      // The server answered, with an error of the statement's own.
      this.options.outcomes?.reached();
      return error;
    }
    if (failure === "unreachable") this.options.outcomes?.unreachable(describeCause(error));
    const unavailable = storeUnavailable("database", DATABASE_RETRY_AFTER_S);
    Object.defineProperty(unavailable, "cause", { value: error, enumerable: false });
    return unavailable;
  }

  reached(): void {
    if (this.options.settings.guard) this.options.outcomes?.reached();
  }

  queryTimeoutMs(): number {
    return this.options.settings.queryTimeoutMs;
  }
}

/** The driver's code and message (a host and port at most, never a password), for the log. */
function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !error.message.includes(code)
    ? `${code}: ${error.message}`
    : error.message;
}

class GuardedConnection implements DatabaseConnection {
  /** Set once the connection failed: it goes back to the pool as broken and is closed there. */
  private broken: Error | undefined;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly driver: GuardedPostgresDriver,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const timeout = this.driver.queryTimeoutMs();
    try {
      const result = await this.client.query<R & pg.QueryResultRow>({
        text: query.sql,
        values: [...query.parameters],
        ...(timeout > 0 && { query_timeout: timeout }),
      });
      this.driver.reached();
      const { command, rowCount, rows } = result;
      return {
        numAffectedRows:
          command === "INSERT" || command === "UPDATE" || command === "DELETE" || command === "MERGE"
            ? BigInt(rowCount ?? 0)
            : undefined,
        rows: rows ?? [],
      };
    } catch (error) {
      const translated = this.driver.translate(error);
      if (translated !== error) this.broken = error instanceof Error ? error : new Error(String(error));
      throw translated;
    }
  }

  // biome-ignore lint/correctness/useYield: streaming is not offered; the gateway reads pages.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not supported by this driver");
  }

  release(): void {
    this.client.release(this.broken);
  }
}
