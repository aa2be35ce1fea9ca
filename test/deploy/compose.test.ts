import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";

const COMPOSE = resolve("deploy/compose.yaml");
const CLI = resolve("dist/cli.js");
const RENDER_CONFIG = resolve("deploy/render-config.mjs");

// biome-ignore lint/suspicious/noExplicitAny: reading the compose document
type Any = any;

/** The compose document as Compose reads it (YAML merge keys resolved). */
const compose: Any = parseYaml(readFileSync(COMPOSE, "utf8"), { merge: true });

/** Whether a docker CLI with the compose plugin is on this machine (no engine needed for `config`). */
function composeAvailable(): boolean {
  const result = spawnSync("docker", ["compose", "version"], { encoding: "utf8", timeout: 10_000 });
  return result.status === 0;
}

const run = promisify(execFile);

/** `airlock config check` of a file; never rejects (started early, awaited by the test). */
async function configCheck(path: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, "config", "check", "--config", path], {
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir() },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

/** The host file mounted at a container path by a service. */
function mountedFile(service: Any, containerPath: string): string {
  const volume = (service.volumes as string[]).find((v) => v.split(":")[1] === containerPath);
  if (!volume) throw new Error(`nothing mounted at ${containerPath}`);
  return resolve("deploy", volume.split(":")[0] ?? "");
}

describe("compose stack", () => {
  /** Both configuration checks, started together so that the CLI runs overlap. */
  const checks: Record<string, Promise<{ code: number; output: string }>> = {};
  beforeAll(() => {
    expect(existsSync(CLI), "dist/cli.js is missing: run npm run build first").toBe(true);
    for (const name of ["airlock-1", "examples"]) {
      checks[name] = configCheck(mountedFile(compose.services[name], "/etc/airlock/config.yaml"));
    }
  });

  it.skipIf(!composeAvailable())("passes docker compose config", () => {
    const result = spawnSync("docker", ["compose", "-f", COMPOSE, "config", "--quiet"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
  });

  it("runs PostgreSQL, Redis, two gateway replicas and a load balancer over both", () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      "airlock-1",
      "airlock-2",
      "examples",
      "lb",
      "postgres",
      "redis",
    ]);
    const haproxy = readFileSync(
      mountedFile(compose.services.lb, "/usr/local/etc/haproxy/haproxy.cfg"),
      "utf8",
    );
    expect(haproxy).toMatch(/^\s*server airlock-1 airlock-1:8080 check$/m);
    expect(haproxy).toMatch(/^\s*server airlock-2 airlock-2:8080 check$/m);
    // Out of rotation while not ready, not merely while not live.
    expect(haproxy).toMatch(/^\s*option httpchk GET \/health\/ready$/m);
  });

  it("gives both replicas the same coordinated configuration on PostgreSQL, and that configuration passes airlock config check", async () => {
    const [one, two] = [compose.services["airlock-1"], compose.services["airlock-2"]];
    const path = mountedFile(one, "/etc/airlock/config.yaml");
    expect(mountedFile(two, "/etc/airlock/config.yaml")).toBe(path);
    const config = parseYaml(readFileSync(path, "utf8"));
    expect(config.persistence.backend).toBe("postgresql");
    expect(config.coordination).toBeDefined();
    expect(one.command).toEqual(
      expect.arrayContaining(["serve", "--config", "/etc/airlock/config.yaml", "--http"]),
    );
    expect(one.environment.MCP_TRUSTED_PROXIES).toBe(compose.services.lb.networks.airlock.ipv4_address);
    const check = await checks["airlock-1"];
    expect(check?.output).toContain("configuration OK");
    expect(check?.code).toBe(0);
  });

  it("gives the example upstream a configuration that passes airlock config check", async () => {
    const check = await checks.examples;
    expect(check?.output).toContain("configuration OK");
    expect(check?.code).toBe(0);
  });

  it("hardens every gateway container: read-only root, non-root user, no capabilities", () => {
    for (const name of ["airlock-1", "airlock-2", "examples"]) {
      const service = compose.services[name];
      expect(service.read_only, name).toBe(true);
      expect(service.user, name).toBe("10001:10001");
      expect(service.cap_drop, name).toEqual(["ALL"]);
      expect(service.tmpfs, name).toEqual(["/tmp"]);
      expect(service.build, name).toEqual({ context: "..", dockerfile: "deploy/Dockerfile" });
    }
  });
});

describe("container image", () => {
  const dockerfile = readFileSync(resolve("deploy/Dockerfile"), "utf8");
  const instructions = dockerfile
    .replace(/\\\n/g, " ")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));

  it("builds in one stage and runs from another, with tini as PID 1 and a health check through Node", () => {
    expect(instructions.filter((line) => line.startsWith("FROM ")).length).toBe(2);
    expect(instructions).toContain('ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/cli.js"]');
    const healthcheck = instructions.find((line) => line.startsWith("HEALTHCHECK "));
    expect(healthcheck).toContain('CMD ["node", "-e"');
    expect(healthcheck).toContain("/health/live");
  });

  it("labels the runtime image with the OCI annotations, version, revision, source and date from build args", () => {
    const runtime = instructions.slice(instructions.findIndex((line) => / AS runtime$/.test(line)));
    const label = runtime.find((line) => line.startsWith("LABEL "));
    const labels = Object.fromEntries(
      [...(label ?? "").matchAll(/(org\.opencontainers\.image\.[a-z]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    const arg = (name: string) => `$${"{"}${name}}`;
    expect(labels).toEqual({
      "org.opencontainers.image.title": "airlock",
      "org.opencontainers.image.description": expect.stringContaining("MCP gateway"),
      "org.opencontainers.image.version": arg("VERSION"),
      "org.opencontainers.image.revision": arg("REVISION"),
      "org.opencontainers.image.created": arg("CREATED"),
      "org.opencontainers.image.source": arg("SOURCE"),
      "org.opencontainers.image.licenses": JSON.parse(readFileSync(resolve("package.json"), "utf8")).license,
    });
    // Each argument is declared in the runtime stage, before the label reads it.
    const labelAt = runtime.indexOf(label ?? "");
    for (const name of ["VERSION", "REVISION", "CREATED", "SOURCE"]) {
      const declared = runtime.findIndex((line) => line.startsWith(`ARG ${name}=`));
      expect(declared, name).toBeGreaterThanOrEqual(0);
      expect(declared, name).toBeLessThan(labelAt);
    }
  });

  it("runs as a numeric non-root user", () => {
    const users = instructions.filter((line) => line.startsWith("USER "));
    expect(users).toEqual(["USER 10001:10001"]);
  });

  it("copies every file the image needs into its build context", () => {
    const ignore = readFileSync(resolve("deploy/Dockerfile.dockerignore"), "utf8");
    const allowed = ignore
      .split("\n")
      .filter((line) => line.startsWith("!"))
      .map((line) => line.slice(1).replace(/\/\*\*$/, ""));
    const copied = instructions
      .filter((line) => line.startsWith("COPY ") && !line.includes("--from="))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    for (const source of copied) {
      expect(allowed, source).toContain(source);
      expect(existsSync(resolve(source)), source).toBe(true);
    }
  });
});

describe("render-config", () => {
  /** A `${NAME}` reference as a configuration template holds it. */
  const ref = (name: string) => `$${"{"}${name}}`;

  function render(template: string, env: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), "airlock-render-"));
    writeFileSync(join(dir, "in.yaml"), template);
    const result = spawnSync(process.execPath, [RENDER_CONFIG, join(dir, "in.yaml"), join(dir, "out.yaml")], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    const out = join(dir, "out.yaml");
    return { ...result, out, text: existsSync(out) ? readFileSync(out, "utf8") : "" };
  }

  it("fills references inside string values, keeping secrets with YAML syntax as data", () => {
    const tricky = "postgres://u:p #not: a comment@db/airlock";
    const result = render(`# kept\na:\n  url: ${ref("DB_URL")}\n  list: ["x-${ref("PART")}"]\nb: 1\n`, {
      DB_URL: tricky,
      PART: "- [y",
    });
    expect(result.status).toBe(0);
    expect(parseYaml(result.text)).toEqual({ a: { url: tricky, list: ["x-- [y"] }, b: 1 });
    expect(result.text).toContain("# kept");
    expect(statSync(result.out).mode & 0o777).toBe(0o600);
  });

  it("refuses an unset or empty variable, naming the key and the variable but no value", () => {
    const result = render(
      `auth:\n  oidc:\n    issuer: ${ref("ISSUER")}\n    audience: ${ref("AUDIENCE")}\n`,
      {
        AUDIENCE: "",
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("auth.oidc.issuer: environment variable ISSUER is not set");
    expect(result.stderr).toContain("auth.oidc.audience: environment variable AUDIENCE is not set");
    expect(result.text).toBe("");
  });

  it("leaves keys, comments and lower-case or unbraced forms alone", () => {
    const result = render(`${ref("KEY")}: $PLAIN ${ref("lower")} # ${ref("COMMENT")}\n`, {
      KEY: "k",
      PLAIN: "p",
    });
    expect(result.status).toBe(0);
    expect(parseYaml(result.text)).toEqual({ [ref("KEY")]: `$PLAIN ${ref("lower")}` });
  });
});
