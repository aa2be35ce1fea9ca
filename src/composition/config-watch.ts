import { readFile } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { type FSWatcher, watch } from "chokidar";
import type { ConfigReloader } from "../app/ports/config-reloader.js";
import type { Logger } from "../app/ports/logger.js";
import type { GatewayConfig } from "../config/schema.js";
import { Periodic } from "../control/periodic.js";

/**
 * Spec 2 §3: the file watcher reloads about 1 s after the last change; editors write a file in
 * several steps (truncate, write, rename), and one reload after the burst sees the finished file.
 */
export const WATCH_DEBOUNCE_MS = 1_000;

/** Who a reload triggered by the file itself is recorded as. */
export const FILE_TRIGGER = "system:config_watcher";

/**
 * Reloads when the configuration file changes (`config_reload`): through a file watcher when
 * `use_watchdog` is true, otherwise by reading the file every `interval_s`. A reload happens only
 * when the text differs from the last text seen, so touching the file does nothing. A refused
 * reload is logged by the reloader and the watch goes on.
 */
export class ConfigFileWatch {
  private watcher: FSWatcher | null = null;
  private poller: Periodic | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private lastText: string | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly path: string,
    private readonly settings: GatewayConfig["config_reload"],
    private readonly reloader: ConfigReloader,
    private readonly logger: Logger,
    private readonly debounceMs = WATCH_DEBOUNCE_MS,
  ) {}

  /** Null when `config_reload.enabled` is false. */
  static create(
    path: string,
    config: GatewayConfig,
    reloader: ConfigReloader,
    logger: Logger,
  ): ConfigFileWatch | null {
    return config.config_reload.enabled
      ? new ConfigFileWatch(path, config.config_reload, reloader, logger)
      : null;
  }

  async start(): Promise<void> {
    this.lastText = await this.readText();
    if (this.settings.use_watchdog) {
      // The directory is watched, not the file: an editor's rename-over replaces the file's inode.
      const name = basename(this.path);
      this.watcher = watch(dirname(this.path), {
        ignoreInitial: true,
        depth: 0,
        ignored: (candidate) => candidate !== dirname(this.path) && basename(candidate) !== name,
      });
      this.watcher.on("all", (_event, changed) => {
        if (basename(changed) === name) this.schedule();
      });
      this.watcher.on("error", (error) =>
        this.logger.warn({ err: String(error), config_path: this.path }, "configuration file watcher error"),
      );
      return;
    }
    this.poller = new Periodic(
      this.settings.interval_s * 1000,
      () => this.checkNow(),
      (error) => this.logger.warn({ err: String(error) }, "configuration poll failed"),
    );
    this.poller.start();
  }

  async stop(): Promise<void> {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = null;
    await this.watcher?.close();
    this.watcher = null;
    await this.poller?.stop();
    this.poller = null;
    await this.running;
  }

  private schedule(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = null;
      void this.checkNow();
    }, this.debounceMs);
    this.debounce.unref();
  }

  /** Reloads when the file's text differs from the last one seen. */
  private async checkNow(): Promise<void> {
    if (this.running) return this.running;
    this.running = (async () => {
      const text = await this.readText();
      if (text === null || text === this.lastText) return;
      this.lastText = text;
      this.logger.info({ config_path: this.path }, "configuration file changed; reloading");
      // The reloader logs and publishes a refusal; the watch goes on with the current configuration.
      await this.reloader.reload({ graceful: true, requestedBy: FILE_TRIGGER }).catch(() => undefined);
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async readText(): Promise<string | null> {
    try {
      return await readFile(this.path, "utf8");
    } catch {
      // Mid-rename the file may be briefly absent; the next event or poll reads it.
      return null;
    }
  }
}
