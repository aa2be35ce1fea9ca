import { resolve } from "node:path";
import type { Duplex } from "node:stream";
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import type Docker from "dockerode";
import {
  type ConnectOptions,
  type LogSink,
  type UpstreamConnection,
  type UpstreamFactory,
  UpstreamStartFailure,
} from "../../../app/ports/upstream.js";
import type { ServerSpec } from "../../../domain/server/server-spec.js";
import { ABANDONED_MESSAGE, ConnectDeadline } from "../session/connect-deadline.js";
import { errorText } from "../session/error-text.js";
import { type ClientInfo, recordProtocolVersion } from "../session/mcp-session-connection.js";
import { openAtRevision, revisionChoice, StatelessRefused } from "../session/revision-choice.js";
import { type BuildOptions, containerName, createBody, readDockerOptions } from "./container-config.js";
import { PROCESS_ID } from "./container-registry.js";
import { ContainerTransport } from "./container-transport.js";
import { DockerConnection } from "./docker-connection.js";
import {
  type ContainerRuntime,
  createEngineClient,
  type DockerEndpoint,
  DockerFailure,
  describeEngineError,
} from "./engine-client.js";
import { ImageSource } from "./image-source.js";
import { describeContainerExit, ManagedContainer } from "./managed-container.js";

export interface DockerUpstreamOptions {
  /** Names the engine in messages (`cannot reach the podman engine`); defaults to docker. */
  runtime?: ContainerRuntime;
  /** Sent as `clientInfo` in `initialize`; pass the gateway's name and version. */
  clientInfo?: ClientInfo;
  /**
   * Seconds between the stop signal and SIGKILL when a container is stopped. 3 s, as the
   * subprocess mode's SIGTERM grace: enough for cleanup handlers, short enough for a quick stop.
   */
  stopTimeoutS?: number;
  /** Largest message read from a container's stdout; defaults to `DEFAULT_MAX_MESSAGE_BYTES`. */
  maxMessageBytes?: number;
}

const DEFAULT_STOP_TIMEOUT_S = 3;

/** What `connect` is doing, to say where a start timed out. */
type Step =
  | "checking the image"
  | "creating the container"
  | "attaching"
  | "starting the container"
  | "initialize";

/**
 * Opens `mode: docker` (and `container`) servers through the engine API at `endpoint` (Docker, or
 * Podman's compatible API): optionally builds the image (a relative `build.context` is resolved
 * against `spec.cwd` when set, else the gateway's working directory), creates a labelled container
 * with stdin open and no TTY, attaches to it, starts it and completes MCP `initialize` over the
 * attach stream.
 *
 * Guaranteed: `connect` settles within `options.timeoutMs` (plus an image build, which has its
 * own bound, and the removal on failure), or soon after `options.signal` aborts (`start abandoned:
 * the server was stopped`); on failure the container it created is stopped and removed and the
 * Error message is safe to show (`image not found: x (...)`, `cannot reach the
 * docker engine (ECONNREFUSED)`, `container exited with code 1 before initialize`, `initialize
 * timed out after 10000 ms`), never a socket path or a stack. Images are never pulled.
 * Not guaranteed: that a server behaves after initialize.
 */
export class DockerUpstreamFactory implements UpstreamFactory {
  private readonly runtime: ContainerRuntime;
  private readonly stopTimeoutS: number;
  private engine: { docker: Docker; images: ImageSource } | undefined;

  constructor(
    private readonly endpoint: DockerEndpoint,
    private readonly options: DockerUpstreamOptions = {},
  ) {
    this.runtime = options.runtime ?? "docker";
    this.stopTimeoutS = options.stopTimeoutS ?? DEFAULT_STOP_TIMEOUT_S;
  }

  async connect(spec: ServerSpec, logs: LogSink, options: ConnectOptions): Promise<UpstreamConnection> {
    if (spec.mode !== "docker") throw new Error(`cannot run mode '${spec.mode}' in a container`);
    const image = spec.image?.trim();
    if (!image) throw new Error("docker server needs an image");
    const settings = readDockerOptions(spec.options);
    const { docker, images } = this.client();
    const body = createBody({ ...spec, image }, settings, PROCESS_ID);
    if (settings.build) await images.build(image, inDirectory(settings.build, spec.cwd), logs);

    const deadline = new ConnectDeadline(options);
    const signal = deadline.signal;
    let step: Step = "checking the image";
    let container: ManagedContainer | undefined;
    let stream: Duplex | undefined;
    let transport: ContainerTransport | undefined;
    try {
      if (deadline.abandoned) throw new Error("abandoned");
      await images.require(image, signal);
      step = "creating the container";
      container = await ManagedContainer.create(
        docker,
        containerName(spec.id),
        body,
        {
          runtime: this.runtime,
          stopTimeoutS: this.stopTimeoutS,
          onRemoveFailed: (message) => logs.append("stderr", `[airlock] ${message}`),
        },
        signal,
      );
      step = "attaching";
      stream = await container.attach(signal);
      step = "starting the container";
      // Attached before starting, so nothing the server writes first is lost.
      await container.start(signal);
      const started = container;
      transport = new ContainerTransport({
        stream,
        exited: started.exited(),
        dispose: () => started.dispose(),
        logs,
        maxMessageBytes: this.options.maxMessageBytes,
      });
      step = "initialize";
      recordProtocolVersion(transport);
      const revision = revisionChoice(spec.options);
      const opened = await deadline.race(
        openAtRevision(transport, revision, this.options.clientInfo, options.timeoutMs),
      );
      return new DockerConnection(opened.client, transport, started.id, opened.stateless);
    } catch (error) {
      const failure = { step, timedOut: deadline.timedOut, timeoutMs: options.timeoutMs, transport };
      const message = deadline.abandoned
        ? ABANDONED_MESSAGE
        : error instanceof StatelessRefused
          ? error.message
          : connectFailure(error, failure, this.runtime);
      const exit = deadline.abandoned ? undefined : transport?.exitStatus;
      if (transport) await transport.close();
      else {
        stream?.destroy();
        await container?.dispose();
      }
      if (exit && "code" in exit) throw new UpstreamStartFailure(message, { code: exit.code, signal: null });
      throw new Error(message);
    } finally {
      deadline.dispose();
    }
  }

  /** The engine client, built on first use so a gateway without docker servers never needs one. */
  private client(): { docker: Docker; images: ImageSource } {
    if (!this.engine) {
      let docker: Docker;
      try {
        docker = createEngineClient(this.endpoint);
      } catch {
        throw new DockerFailure(
          `cannot set up the ${this.runtime} client (check DOCKER_HOST and DOCKER_CERT_PATH)`,
        );
      }
      this.engine = { docker, images: new ImageSource(docker, this.runtime) };
    }
    return this.engine;
  }
}

/** `build` with a relative context resolved against the server's working directory. */
function inDirectory(build: BuildOptions, cwd: string | undefined): BuildOptions {
  return cwd === undefined ? build : { ...build, context: resolve(cwd, build.context) };
}

interface FailureContext {
  step: Step;
  timedOut: boolean;
  timeoutMs: number;
  transport: ContainerTransport | undefined;
}

/** The safe-to-show reason a connect failed; computed before the container is removed. */
function connectFailure(error: unknown, context: FailureContext, runtime: ContainerRuntime): string {
  const exit = context.transport?.exitStatus;
  if (exit) return `${describeContainerExit(exit)} before initialize`;
  if (context.timedOut || (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)) {
    return context.step === "initialize"
      ? `initialize timed out after ${context.timeoutMs} ms`
      : `timed out after ${context.timeoutMs} ms ${context.step}`;
  }
  if (error instanceof DockerFailure) return error.message;
  if (context.transport?.closedReason) return `${context.transport.closedReason} before initialize`;
  if (context.step !== "initialize") return describeEngineError(error, runtime);
  return `initialize failed: ${errorText(error).split("\n", 1)[0]}`;
}
