import { readdir } from "node:fs/promises";
import { resolve } from "node:path";
import type Docker from "dockerode";
import type { LogSink } from "../../../app/ports/upstream.js";
import { LineSplitter } from "../session/line-splitter.js";
import type { BuildOptions } from "./container-config.js";
import { type ContainerRuntime, DockerFailure, describeEngineError, engineStatus } from "./engine-client.js";

/**
 * Bound on one image build. Builds run outside the start timeout (a first build takes minutes);
 * ten minutes covers a cold dependency install on a slow link.
 */
export const BUILD_TIMEOUT_MS = 10 * 60_000;

/**
 * Makes sure a server's image exists on the engine. Images are never pulled (the gateway must not
 * fetch code a registry serves at start time): a missing image fails with a message naming it.
 *
 * With `build`, the image is built from the local context and tagged with the server's `image`
 * once per gateway process, on the first start that needs it (the engine's layer cache makes a
 * rebuild after a restart cheap); later starts reuse the tag. A failed build is retried on the
 * next start. Build output goes to the server's `LogSink` (stdout stream) so a failure can be read.
 */
export class ImageSource {
  private readonly builds = new Map<string, Promise<void>>();

  constructor(
    private readonly docker: Docker,
    private readonly runtime: ContainerRuntime,
  ) {}

  /** Fails with `image not found: <image> ...` when the engine does not have it. */
  async require(image: string, signal: AbortSignal): Promise<void> {
    try {
      await this.docker.getImage(image).inspect({ abortSignal: signal } as Docker.ImageInspectOptions);
    } catch (error) {
      if (engineStatus(error) === 404) {
        throw new DockerFailure(
          `image not found: ${image} (images are never pulled: build or pull it on the ${this.runtime} engine first)`,
        );
      }
      throw new DockerFailure(`cannot check image ${image}: ${describeEngineError(error, this.runtime)}`);
    }
  }

  /** Builds `image` from `build` unless this process already did. */
  build(image: string, build: BuildOptions, logs: LogSink): Promise<void> {
    const key = JSON.stringify([image, resolve(build.context), build.dockerfile, build.args]);
    let pending = this.builds.get(key);
    if (!pending) {
      pending = this.runBuild(image, build, logs);
      this.builds.set(key, pending);
      pending.catch(() => this.builds.delete(key));
    }
    return pending;
  }

  private async runBuild(image: string, build: BuildOptions, logs: LogSink): Promise<void> {
    const context = resolve(build.context);
    let entries: string[];
    try {
      entries = await readdir(context);
    } catch {
      // The path comes from the configuration file; the caller sees only that it is unusable.
      throw new DockerFailure(`cannot build image ${image}: the build context is not a readable directory`);
    }
    let output: NodeJS.ReadableStream;
    try {
      output = await this.docker.buildImage({ context, src: entries }, {
        t: image,
        dockerfile: build.dockerfile,
        buildargs: { ...build.args },
        rm: true,
        forcerm: true,
        abortSignal: AbortSignal.timeout(BUILD_TIMEOUT_MS),
      } as Docker.ImageBuildOptions);
    } catch (error) {
      throw new DockerFailure(`cannot build image ${image}: ${describeEngineError(error, this.runtime)}`);
    }
    const failure = await readBuildOutput(output, logs);
    if (failure !== undefined) throw new DockerFailure(`cannot build image ${image}: ${failure}`);
  }
}

/**
 * Follows the engine's build progress (one JSON object per line) to its end, forwarding the
 * `stream` text line by line to `logs`. Resolves with the build's error, if it reported one (a
 * failed build still answers HTTP 200; the error is a line of the stream).
 */
function readBuildOutput(output: NodeJS.ReadableStream, logs: LogSink): Promise<string | undefined> {
  return new Promise((resolveOutput) => {
    let failure: string | undefined;
    const text = new LineSplitter((line) => logs.append("stdout", line));
    const events = new LineSplitter((line) => {
      if (line.trim() === "") return;
      let event: { stream?: unknown; error?: unknown; errorDetail?: { message?: unknown } };
      try {
        event = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof event.stream === "string") text.push(event.stream);
      const message = event.errorDetail?.message ?? event.error;
      if (typeof message === "string" && failure === undefined) failure = message.split("\n", 1)[0];
    });
    let settled = false;
    const done = (error?: unknown) => {
      if (settled) return;
      settled = true;
      events.end();
      text.end();
      if (failure === undefined && error !== undefined) failure = "the build stream broke";
      resolveOutput(failure);
    };
    output.on("data", (chunk: Buffer) => events.push(chunk));
    output.on("end", () => done());
    output.on("close", () => done());
    output.on("error", (error) => done(error));
  });
}
