import type { Duplex } from "node:stream";
import type Docker from "dockerode";
import { trackContainer, untrackContainer } from "./container-registry.js";
import {
  type ContainerRuntime,
  DockerFailure,
  describeEngineError,
  engineStatus,
  isAbort,
} from "./engine-client.js";

/** How a container ended: its exit code, or why the code cannot be known. */
export type ContainerExit = { readonly code: number } | { readonly lost: string };

/** `container exited with code 3` / the reason the exit could not be observed. */
export function describeContainerExit(exit: ContainerExit): string {
  return "code" in exit ? `container exited with code ${exit.code}` : exit.lost;
}

/** Bound on the remove request; a force remove is a SIGKILL and a delete, quick on a healthy engine. */
const REMOVE_REQUEST_MS = 10_000;

/**
 * Margin on top of the stop grace for the stop request itself: the engine answers once the container
 * stopped, which takes the grace plus the time to deliver SIGKILL and reap.
 */
const STOP_REQUEST_MARGIN_MS = 10_000;

/** What the engine answers an attach with before it hands the connection over. */
const ATTACH_STATUS = {
  101: true,
  200: true,
  400: "bad parameter",
  404: "no such container",
  500: "server error",
};

export interface ManagedContainerOptions {
  readonly runtime: ContainerRuntime;
  /** Seconds between the stop signal and SIGKILL (Docker's `stop?t=`). */
  readonly stopTimeoutS: number;
  /** Told why a removal failed (the container then waits for the shutdown sweep). */
  readonly onRemoveFailed: (message: string) => void;
}

/**
 * One container created by this process: attach, start, watch for its exit, stop and remove.
 *
 * Guaranteed: it is tracked for the shutdown sweep from creation until the engine confirmed its
 * removal; `dispose()` is idempotent, never rejects, and resolves once the container is removed
 * (or the engine refused, which `onRemoveFailed` hears about); `exited()` never rejects.
 */
export class ManagedContainer {
  private exitWatch: Promise<ContainerExit> | undefined;
  private readonly waitController = new AbortController();
  private disposing: Promise<void> | undefined;

  private constructor(
    private readonly docker: Docker,
    readonly id: string,
    private readonly options: ManagedContainerOptions,
  ) {}

  /** Creates the container; the body's labels mark it as ours. */
  static async create(
    docker: Docker,
    name: string,
    body: Docker.ContainerCreateOptions,
    options: ManagedContainerOptions,
    signal: AbortSignal,
  ): Promise<ManagedContainer> {
    // `_query`/`_body` keep the body out of the URL: dockerode otherwise repeats every option in the
    // query string, and `Env` may hold secrets that engines log with request URLs.
    const request = { _query: { name }, _body: body, abortSignal: signal };
    let created: Docker.Container;
    try {
      created = await docker.createContainer(request as unknown as Docker.ContainerCreateOptions);
    } catch (error) {
      // The engine's message names what it refused: the image, the network, a volume.
      throw new DockerFailure(`cannot create the container: ${describeEngineError(error, options.runtime)}`);
    }
    trackContainer(created.id);
    return new ManagedContainer(docker, created.id, options);
  }

  /** A short id, as `docker ps` shows it. */
  get shortId(): string {
    return this.id.slice(0, 12);
  }

  /**
   * Attaches to stdin, stdout and stderr and returns the hijacked connection: raw stdin in,
   * multiplexed output out.
   *
   * Built on the modem rather than `container.attach()`, which sends its options as a JSON body:
   * an engine that passes the hijacked connection's buffered bytes on to stdin would put that body
   * in front of the first JSON-RPC message. An empty buffer gives `Content-Length: 0` (without a
   * body dockerode would announce a chunked one), so nothing but our own writes reaches stdin.
   */
  attach(signal: AbortSignal): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      this.docker.modem.dial(
        {
          path: `/containers/${this.id}/attach?`,
          method: "POST",
          options: { _query: { stream: 1, stdin: 1, stdout: 1, stderr: 1 }, _body: {} },
          file: Buffer.alloc(0),
          headers: { "Content-Type": "text/plain" },
          hijack: true,
          openStdin: true,
          isStream: true,
          abortSignal: signal,
          statusCodes: ATTACH_STATUS,
        },
        (error, stream) => {
          if (error) reject(new DockerFailure(`cannot attach to the container: ${this.describe(error)}`));
          else resolve(stream as Duplex);
        },
      );
    });
  }

  async start(signal: AbortSignal): Promise<void> {
    try {
      await this.docker.getContainer(this.id).start({ abortSignal: signal } as Docker.ContainerStartOptions);
    } catch (error) {
      // 304: already started, which is what we asked for.
      if (engineStatus(error) === 304) return;
      throw new DockerFailure(`cannot start the container: ${this.describe(error)}`);
    }
  }

  /**
   * Resolves when the container is not running, with its exit code. Asked after `start` with
   * Docker's default condition `not-running`, which also answers at once for a container that
   * already exited (a `next-exit` wait sent after such an exit would never return).
   */
  exited(): Promise<ContainerExit> {
    this.exitWatch ??= this.docker
      .getContainer(this.id)
      .wait({ condition: "not-running", abortSignal: this.waitController.signal })
      .then(
        (answer: { StatusCode?: unknown; Error?: { Message?: unknown } | null }) =>
          typeof answer?.StatusCode === "number"
            ? { code: answer.StatusCode }
            : { lost: `the ${this.options.runtime} engine did not report an exit code` },
        (error: unknown): ContainerExit => {
          if (engineStatus(error) === 404) return { lost: "the container was removed" };
          if (isAbort(error)) return { lost: "stopped watching the container" };
          return {
            lost: `lost the ${this.options.runtime} engine while the container ran (${this.describe(error)})`,
          };
        },
      );
    return this.exitWatch;
  }

  /** Stops the container (stop signal, then SIGKILL after the grace), then removes it. */
  dispose(): Promise<void> {
    this.disposing ??= this.stopAndRemove();
    return this.disposing;
  }

  private async stopAndRemove(): Promise<void> {
    const container = this.docker.getContainer(this.id);
    const stopBound = this.options.stopTimeoutS * 1000 + STOP_REQUEST_MARGIN_MS;
    try {
      await container.stop({ t: this.options.stopTimeoutS, abortSignal: AbortSignal.timeout(stopBound) });
    } catch {
      // 304 (not running), 404 (gone) or an engine failure: the forced removal below covers all three.
    }
    try {
      await container.remove({ force: true, abortSignal: AbortSignal.timeout(REMOVE_REQUEST_MS) });
      untrackContainer(this.id);
    } catch (error) {
      if (engineStatus(error) === 404) untrackContainer(this.id);
      else this.options.onRemoveFailed(`could not remove container ${this.shortId}: ${this.describe(error)}`);
    } finally {
      // The wait answers by itself once the container is gone; this only ends a wait the engine forgot.
      this.waitController.abort();
    }
  }

  private describe(error: unknown): string {
    return describeEngineError(error, this.options.runtime);
  }
}
