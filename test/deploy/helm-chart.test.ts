import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { PromGatewayMetrics } from "../../src/adapters/observability/metrics.js";
import { helmBinary, runHelm } from "../support/helm.js";
import { type KubeObject, validateObject } from "../support/kubernetes-objects.js";

const CHART = resolve("helm/airlock");
const MULTI_REPLICA = join(CHART, "ci/multi-replica-values.yaml");
const CLI = resolve("dist/cli.js");
const RENDER_CONFIG = resolve("deploy/render-config.mjs");

let helm: string;
/** `airlock config check` of each case's rendered configuration, started early to overlap. */
const configChecks = new Map<string, Promise<{ code: number; output: string }>>();

beforeAll(() => {
  helm = helmBinary();
  expect(existsSync(CLI), "dist/cli.js is missing: run npm run build first").toBe(true);
  for (const [name, args] of [
    ["default values", []],
    ["multi-replica values", ["-f", MULTI_REPLICA]],
  ] as const) {
    configChecks.set(name, checkRenderedConfig(template(...args), SECRET_ENV));
  }
});

function template(...args: string[]): KubeObject[] {
  const result = runHelm(helm, ["template", "rel", CHART, "--namespace", "gw", ...args]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  return parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

function templateFailure(...args: string[]): string {
  const result = runHelm(helm, ["template", "rel", CHART, ...args]);
  expect(result.code).not.toBe(0);
  return result.stderr;
}

function find(objects: KubeObject[], kind: string, name = "rel-airlock"): KubeObject {
  const object = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!object)
    throw new Error(`no ${kind} ${name} among ${objects.map((o) => `${o.kind}/${o.metadata.name}`)}`);
  return object;
}

// biome-ignore lint/suspicious/noExplicitAny: reading deep into rendered manifests
type Any = any;

/**
 * Renders the ConfigMap's template with the given environment and runs `airlock config check` on
 * the result (asynchronously: the two cases' CLI runs overlap).
 */
async function checkRenderedConfig(objects: KubeObject[], env: Record<string, string>) {
  const template = find(objects, "ConfigMap").data?.["config.yaml"];
  if (template === undefined) throw new Error("the ConfigMap has no config.yaml");
  const dir = mkdtempSync(join(tmpdir(), "airlock-chart-"));
  writeFileSync(join(dir, "template.yaml"), template);
  const base = { PATH: process.env.PATH ?? "", HOME: dir };
  // Never rejects: the outcome is awaited later, by the test that asserts it.
  try {
    await run(process.execPath, [RENDER_CONFIG, join(dir, "template.yaml"), join(dir, "config.yaml")], {
      env: { ...base, ...env },
    });
    const { stdout, stderr } = await run(
      process.execPath,
      [CLI, "config", "check", "--config", join(dir, "config.yaml")],
      { env: base },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

const run = promisify(execFile);

const SECRET_ENV = {
  AIRLOCK_DATABASE_URL: "postgres://airlock:pw@db.example:5432/airlock",
  AIRLOCK_REDIS_URL: "redis://:pw@redis.example:6379/0",
  AIRLOCK_OIDC_ISSUER: "https://issuer.example.com",
  AIRLOCK_OIDC_AUDIENCE: "airlock",
  AIRLOCK_OIDC_CLIENT_ID: "airlock-client",
};

describe("helm chart", () => {
  it("passes helm lint with the default values, the multi-replica values and a claim for SQLite", () => {
    for (const args of [[], ["-f", MULTI_REPLICA], ["--set", "persistence.enabled=true"]]) {
      const result = runHelm(helm, ["lint", "--strict", CHART, ...args]);
      expect(result.stdout + result.stderr).toContain("0 chart(s) failed");
      expect(result.code).toBe(0);
    }
  });

  describe.each([
    {
      name: "default values",
      args: [] as string[],
      kinds: [
        "ConfigMap",
        "Deployment",
        "NetworkPolicy",
        "Pod",
        "PodDisruptionBudget",
        "Service",
        "ServiceAccount",
      ],
    },
    {
      name: "multi-replica values",
      args: ["-f", MULTI_REPLICA],
      kinds: [
        "ConfigMap",
        "Deployment",
        "HTTPRoute",
        "HorizontalPodAutoscaler",
        "Ingress",
        "NetworkPolicy",
        "Pod",
        "PodDisruptionBudget",
        "PrometheusRule",
        "Service",
        "ServiceAccount",
        "ServiceMonitor",
      ],
    },
  ])("rendered with the $name", ({ name, args, kinds }) => {
    let objects: KubeObject[];
    beforeAll(() => {
      objects = template(...args);
    });

    it("renders the expected objects, each valid against its schema", () => {
      expect([...new Set(objects.map((o) => o.kind))].sort()).toEqual(kinds);
      for (const object of objects) validateObject(object);
    });

    it("probes liveness and startup on /health/live and readiness on /health/ready", () => {
      const container: Any = (find(objects, "Deployment").spec as Any).template.spec.containers[0];
      expect(container.startupProbe.httpGet.path).toBe("/health/live");
      expect(container.livenessProbe.httpGet.path).toBe("/health/live");
      expect(container.readinessProbe.httpGet.path).toBe("/health/ready");
      for (const probe of [container.startupProbe, container.livenessProbe, container.readinessProbe]) {
        expect(probe.httpGet.port).toBe("http");
      }
    });

    it("runs every container as a non-root user on a read-only root file system, with limits", () => {
      const pod: Any = (find(objects, "Deployment").spec as Any).template.spec;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const container of [...pod.initContainers, ...pod.containers]) {
        expect(container.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
        });
        expect(Object.keys(container.resources).sort()).toEqual(["limits", "requests"]);
      }
      const mounts = pod.containers[0].volumeMounts.map((m: Any) => m.mountPath).sort();
      expect(mounts).toEqual(["/app/data", "/run/airlock", "/tmp"]);
    });

    it("ships a helm test hook that asks the Service for /health/ready", () => {
      const test: Any = objects.find((o) => o.kind === "Pod");
      expect(test.metadata.annotations["helm.sh/hook"]).toBe("test");
      expect(test.spec.containers[0].env[0].value).toBe("http://rel-airlock.gw.svc:8080");
      expect(test.spec.containers[0].command.join(" ")).toContain("/health/ready");
      // The Service (and the budget and policy, which use the same selector) must not pick it.
      const selector: Record<string, string> = (find(objects, "Service").spec as Any).selector;
      const selected = Object.entries(selector).every(([key, value]) => test.metadata.labels[key] === value);
      expect(selected).toBe(false);
    });

    it("renders a configuration that airlock config check accepts once its references are filled", async () => {
      const check = await configChecks.get(name);
      if (!check) throw new Error(`no configuration check started for ${name}`);
      expect(check.output).toContain("configuration OK");
      expect(check.code).toBe(0);
    });
  });

  it("fills the referenced Secrets in through the environment, never into the ConfigMap", () => {
    const objects = template("-f", MULTI_REPLICA);
    const config = parseYaml(find(objects, "ConfigMap").data?.["config.yaml"] ?? "");
    const ref = (name: string) => `$${"{"}${name}}`;
    expect(config.persistence.postgresql.connectionString).toBe(ref("AIRLOCK_DATABASE_URL"));
    expect(config.truncation.redis_url).toBe(ref("AIRLOCK_REDIS_URL"));
    expect(config.auth.oidc).toMatchObject({
      issuer: ref("AIRLOCK_OIDC_ISSUER"),
      client_id: ref("AIRLOCK_OIDC_CLIENT_ID"),
    });
    const init: Any = (find(objects, "Deployment").spec as Any).template.spec.initContainers[0];
    const byName = Object.fromEntries(init.env.map((e: Any) => [e.name, e.valueFrom?.secretKeyRef]));
    expect(byName.AIRLOCK_DATABASE_URL).toEqual({ name: "airlock-database", key: "url" });
    expect(byName.AIRLOCK_OIDC_CLIENT_ID).toEqual({ name: "airlock-oidc", key: "client-id" });
    // The gateway container itself never sees the secrets' variables.
    const main: Any = (find(objects, "Deployment").spec as Any).template.spec.containers[0];
    expect(main.env.map((e: Any) => e.name)).not.toContain("AIRLOCK_DATABASE_URL");
  });

  it("refuses a missing secret reference when the configuration is rendered, naming key and variable", () => {
    const objects = template("-f", MULTI_REPLICA);
    const { AIRLOCK_REDIS_URL: _left, ...withoutRedis } = SECRET_ENV;
    const dir = mkdtempSync(join(tmpdir(), "airlock-chart-"));
    writeFileSync(join(dir, "template.yaml"), find(objects, "ConfigMap").data?.["config.yaml"] ?? "");
    const rendered = spawnSync(
      process.execPath,
      [RENDER_CONFIG, join(dir, "template.yaml"), join(dir, "out.yaml")],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", ...withoutRedis },
      },
    );
    expect(rendered.status).toBe(1);
    expect(rendered.stderr).toContain(
      "truncation.redis_url: environment variable AIRLOCK_REDIS_URL is not set",
    );
  });

  describe("refuses more than one replica without PostgreSQL and coordination", () => {
    it("refuses replicaCount 2 on SQLite", () => {
      expect(templateFailure("--set", "replicaCount=2")).toContain(
        "replicaCount=2 needs config.persistence.backend: postgresql (found sqlite)",
      );
    });

    it("refuses an autoscaler above one on SQLite even with replicaCount 1", () => {
      expect(templateFailure("--set", "autoscaling.enabled=true")).toContain(
        "autoscaling.maxReplicas=4 needs config.persistence.backend: postgresql",
      );
    });

    it("refuses PostgreSQL without a coordination block", () => {
      expect(
        templateFailure("--set", "replicaCount=3", "--set", "config.persistence.backend=postgresql"),
      ).toContain("replicaCount=3 needs a config.coordination block");
    });

    it("refuses a local server with coordination, naming it", () => {
      const stderr = templateFailure(
        "-f",
        MULTI_REPLICA,
        "--set",
        "config.mcp_servers.local.command[0]=node",
      );
      expect(stderr).toContain("config.mcp_servers.local.mode must be remote with config.coordination");
    });

    it("refuses the example servers with coordination", () => {
      expect(templateFailure("-f", MULTI_REPLICA, "--set", "exampleServers.enabled=true")).toContain(
        "exampleServers.enabled must be false with config.coordination",
      );
    });

    it("renders one replica on SQLite, and an autoscaler capped at one", () => {
      const single = template(
        "--set",
        "autoscaling.enabled=true",
        "--set",
        "autoscaling.minReplicas=1",
        "--set",
        "autoscaling.maxReplicas=1",
      );
      expect((find(single, "HorizontalPodAutoscaler").spec as Any).maxReplicas).toBe(1);
    });
  });

  it("refuses values outside the chart's schema, naming the value and the rule", () => {
    expect(templateFailure("--set", "replicaCont=2")).toContain(
      "additional properties 'replicaCont' not allowed",
    );
    expect(templateFailure("--set", "service.port=70000")).toContain("at '/service/port': maximum");
    expect(templateFailure("--set", "secrets.redis.targets[0]=cache")).toContain(
      "at '/secrets/redis/targets/0': value must be one of 'truncation', 'approvals'",
    );
  });

  describe("validates config against the configuration's JSON Schema", () => {
    it("refuses a bad value, an unknown key and a misspelt mode, naming each field", () => {
      expect(templateFailure("--set", "config.logging.level=LOUD")).toContain("at '/config/logging/level'");
      expect(
        templateFailure(
          "--set",
          "config.mcp_servers.a.command[0]=x",
          "--set",
          "config.mcp_servers.a.idle_ttl_s=0",
        ),
      ).toMatch(/at '\/config\/mcp_servers\/a\/idle_ttl_s': minimum/);
      expect(templateFailure("--set", "config.loging.level=INFO")).toContain(
        "additional properties 'loging' not allowed",
      );
      expect(templateFailure("--set", "config.mcp_servers.r.mode=remot")).toContain(
        "at '/config/mcp_servers/r/mode'",
      );
    });

    it("accepts environment references where a number or an enum is expected", () => {
      const ref = (name: string) => `$${"{"}${name}}`;
      const objects = template(
        "--set-string",
        `config.logging.level=${ref("LOG_LEVEL")}`,
        "--set-string",
        `config.http.graceful_shutdown_timeout_s=${ref("DRAIN_S")}`,
      );
      const config = parseYaml(find(objects, "ConfigMap").data?.["config.yaml"] ?? "");
      expect(config.logging.level).toBe(ref("LOG_LEVEL"));
      expect(config.http.graceful_shutdown_timeout_s).toBe(ref("DRAIN_S"));
    });

    const fixtures = (folder: string, names: string[]) =>
      names.map((name) => join("test/fixtures/config", folder, `${name}.yaml`));
    /** Files `config check` accepts (some with warnings): the schema accepts them too. */
    const accepted = [
      ...fixtures("valid", [
        "empty",
        "minimal",
        "full",
        "coordination",
        "coordination-defaults",
        "group-without-members",
        "yaml-anchors",
      ]),
      ...fixtures("warnings", [
        "coordination-renew-interval",
        "deprecated-values",
        "group-strategy-fallback",
        "ignored-keys",
        "insecure-issuer",
      ]),
      "config.yaml",
    ];
    /** Files with unknown keys that `config check` refuses: so does the schema. */
    const refused = fixtures("warnings", ["unknown-keys", "extension-keys", "builtin-names"]);

    function schemaVerdict(file: string): string {
      const dir = mkdtempSync(join(tmpdir(), "airlock-chart-"));
      const values = join(dir, "values.yaml");
      const document = parseYaml(readFileSync(resolve(file), "utf8"), { merge: true }) ?? {};
      writeFileSync(values, JSON.stringify({ config: document, exampleServers: { enabled: false } }));
      return runHelm(helm, ["template", "rel", CHART, "-f", values]).stderr;
    }

    it.each(accepted)("accepts %s, which config check accepts", (file) => {
      expect(schemaVerdict(file)).not.toContain("values don't meet the specifications of the schema");
    });

    it.each(refused)("refuses %s, whose unknown keys config check refuses", (file) => {
      expect(schemaVerdict(file)).toContain("values don't meet the specifications of the schema");
    });
  });

  describe("scheduling", () => {
    const podSpec = (...args: string[]): Any =>
      (find(template(...args), "Deployment").spec as Any).template.spec;
    const selector = { "app.kubernetes.io/name": "airlock", "app.kubernetes.io/instance": "rel" };

    it("prefers one pod per node and spreads pods over zones without blocking, by default", () => {
      const spec = podSpec();
      expect(spec.affinity).toEqual({
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                topologyKey: "kubernetes.io/hostname",
                labelSelector: { matchLabels: selector },
              },
            },
          ],
        },
      });
      expect(spec.topologySpreadConstraints).toEqual([
        {
          maxSkew: 1,
          topologyKey: "topology.kubernetes.io/zone",
          whenUnsatisfiable: "ScheduleAnyway",
          labelSelector: { matchLabels: selector },
        },
      ]);
    });

    it("turns each default off, or replaces it with affinity and constraints written in full", () => {
      const off = podSpec("--set", "podAntiAffinity.enabled=false", "--set", "topologySpread.enabled=false");
      expect(off.affinity).toBeUndefined();
      expect(off.topologySpreadConstraints).toBeUndefined();
      const written = podSpec(
        "-f",
        MULTI_REPLICA,
        "--set",
        "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].key=pool",
        "--set",
        "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator=Exists",
      );
      expect(Object.keys(written.affinity)).toEqual(["nodeAffinity"]);
      expect(written.topologySpreadConstraints.map((c: Any) => c.topologyKey)).toEqual([
        "kubernetes.io/hostname",
      ]);
    });

    it("refuses a spread that is neither ScheduleAnyway nor DoNotSchedule", () => {
      expect(templateFailure("--set", "topologySpread.whenUnsatisfiable=Sometimes")).toContain(
        "at '/topologySpread/whenUnsatisfiable'",
      );
    });
  });

  describe("ingress and HTTPRoute", () => {
    it("renders an Ingress to the Service with no stream timeout under an hour and no buffering", () => {
      const objects = template("-f", MULTI_REPLICA);
      const ingress: Any = find(objects, "Ingress");
      expect(ingress.metadata.annotations).toEqual({
        "nginx.ingress.kubernetes.io/proxy-read-timeout": "3600",
        "nginx.ingress.kubernetes.io/proxy-send-timeout": "3600",
        "nginx.ingress.kubernetes.io/proxy-buffering": "off",
      });
      expect(ingress.spec.ingressClassName).toBe("nginx");
      expect(ingress.spec.tls).toEqual([{ secretName: "airlock-tls", hosts: ["airlock.example.com"] }]);
      expect(ingress.spec.rules).toEqual([
        {
          host: "airlock.example.com",
          http: {
            paths: [
              {
                path: "/",
                pathType: "Prefix",
                backend: { service: { name: "rel-airlock", port: { name: "http" } } },
              },
            ],
          },
        },
      ]);
    });

    it("lets annotations of its own override the stream ones, or drops them for another controller", () => {
      const own: Any = find(
        template(
          "--set",
          "ingress.enabled=true",
          "--set-string",
          "ingress.annotations.nginx\\.ingress\\.kubernetes\\.io/proxy-read-timeout=600",
        ),
        "Ingress",
      );
      expect(own.metadata.annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"]).toBe("600");
      expect(own.spec.rules).toEqual([
        {
          http: {
            paths: [
              {
                path: "/",
                pathType: "Prefix",
                backend: { service: { name: "rel-airlock", port: { name: "http" } } },
              },
            ],
          },
        },
      ]);
      const bare: Any = find(
        template("--set", "ingress.enabled=true", "--set", "ingress.streamAnnotations=null"),
        "Ingress",
      );
      expect(bare.metadata.annotations).toBeUndefined();
    });

    it("renders an HTTPRoute whose request timeouts are off, so streams are not cut", () => {
      const route: Any = find(template("-f", MULTI_REPLICA), "HTTPRoute");
      expect(route.spec.parentRefs).toEqual([{ name: "public", namespace: "gateways" }]);
      expect(route.spec.hostnames).toEqual(["airlock.example.com"]);
      expect(route.spec.rules).toEqual([
        {
          matches: [{ path: { type: "PathPrefix", value: "/" } }],
          backendRefs: [{ name: "rel-airlock", port: 8080 }],
          timeouts: { request: "0s", backendRequest: "0s" },
        },
      ]);
    });

    it("refuses an HTTPRoute without a parent Gateway and a timeout that is not a duration", () => {
      expect(templateFailure("--set", "httpRoute.enabled=true")).toContain(
        "httpRoute.enabled needs httpRoute.parentRefs",
      );
      expect(templateFailure("--set", "httpRoute.timeouts.request=forever")).toContain(
        "at '/httpRoute/timeouts/request'",
      );
    });
  });

  describe("a claim for SQLite", () => {
    it("creates a PersistentVolumeClaim mounted at /app/data and stops the old pod before the new one starts", () => {
      const objects = template(
        "--set",
        "persistence.enabled=true",
        "--set",
        "persistence.size=5Gi",
        "--set",
        "persistence.storageClass=fast",
      );
      for (const object of objects) validateObject(object);
      const claim: Any = find(objects, "PersistentVolumeClaim", "rel-airlock-data");
      expect(claim.spec).toEqual({
        accessModes: ["ReadWriteOnce"],
        storageClassName: "fast",
        resources: { requests: { storage: "5Gi" } },
      });
      const spec: Any = find(objects, "Deployment").spec;
      expect(spec.strategy).toEqual({ type: "Recreate" });
      const data = spec.template.spec.volumes.find((v: Any) => v.name === "data");
      expect(data).toEqual({ name: "data", persistentVolumeClaim: { claimName: "rel-airlock-data" } });
      const mount = spec.template.spec.containers[0].volumeMounts.find((m: Any) => m.name === "data");
      expect(mount.mountPath).toBe("/app/data");
    });

    it("asks for no storage class with -, and the default class when empty", () => {
      const none: Any = find(
        template("--set", "persistence.enabled=true", "--set", "persistence.storageClass=-"),
        "PersistentVolumeClaim",
        "rel-airlock-data",
      );
      expect(none.spec.storageClassName).toBe("");
      const byDefault: Any = find(
        template("--set", "persistence.enabled=true"),
        "PersistentVolumeClaim",
        "rel-airlock-data",
      );
      expect(byDefault.spec).not.toHaveProperty("storageClassName");
    });

    it("refuses a claim with more than one replica, with PostgreSQL, or beside an existing claim", () => {
      expect(templateFailure("--set", "persistence.enabled=true", "--set", "replicaCount=2")).toContain(
        "replicaCount=2 needs config.persistence.backend: postgresql",
      );
      expect(
        templateFailure(
          "--set",
          "persistence.enabled=true",
          "--set",
          "config.persistence.backend=postgresql",
        ),
      ).toContain("persistence.enabled keeps SQLite files");
      expect(
        templateFailure("--set", "persistence.enabled=true", "--set", "dataVolume.existingClaim=mine"),
      ).toContain("persistence.enabled and dataVolume.existingClaim both name the data volume");
    });
  });

  it("stops the old pod before the new one opens a SQLite file on a claim", () => {
    const objects = template("--set", "dataVolume.existingClaim=airlock-data");
    for (const object of objects) validateObject(object);
    const spec: Any = find(objects, "Deployment").spec;
    expect(spec.strategy).toEqual({ type: "Recreate" });
    const data = spec.template.spec.volumes.find((v: Any) => v.name === "data");
    expect(data).toEqual({ name: "data", persistentVolumeClaim: { claimName: "airlock-data" } });
  });

  it("alerts on no replica up, tool-call error rate, open circuits and the approval backlog", () => {
    const rule: Any = find(template("-f", MULTI_REPLICA), "PrometheusRule");
    const alerts = rule.spec.groups[0].rules.map((r: Any) => r.alert);
    expect(alerts).toEqual([
      "AirlockDown",
      "AirlockToolCallErrorRate",
      "AirlockCircuitOpen",
      "AirlockApprovalBacklog",
      "AirlockNoLeaseHolder",
      "AirlockSplitLeadership",
      "AirlockLeaseFlapping",
      "AirlockReplicationLag",
      "AirlockMcpServerDead",
      "AirlockMcpServerDegraded",
      "AirlockConfigReloadFailed",
      "AirlockLeaseLost",
      "AirlockLeaseRenewalFailures",
    ]);
  });

  it("alerts on the management lease and the replication lag with the configured thresholds", () => {
    const rule: Any = find(
      template(
        "-f",
        MULTI_REPLICA,
        "--set",
        "prometheusRule.noLeaseHolder.for=3m",
        "--set",
        "prometheusRule.replicationLag.threshold=30",
      ),
      "PrometheusRule",
    );
    const byName = Object.fromEntries(rule.spec.groups[0].rules.map((r: Any) => [r.alert, r]));
    const selector = 'job="rel-airlock", namespace="gw"';
    const noHolder = byName.AirlockNoLeaseHolder;
    expect(noHolder.expr).toContain(`sum(airlock_lease_holder{${selector}}) == 0`);
    // Only while replicas are up: with none up, AirlockDown speaks.
    expect(noHolder.expr).toContain(`and on() sum(up{${selector}}) > 0`);
    expect(noHolder.for).toBe("3m");
    expect(noHolder.labels.severity).toBe("critical");
    for (const stopped of ["idle reaping", "crash recovery", "auto_start groups", "discovery cycles"]) {
      expect(noHolder.annotations.description).toContain(stopped);
    }
    expect(byName.AirlockSplitLeadership.expr).toBe(`sum(airlock_lease_holder{${selector}}) > 1`);
    expect(byName.AirlockSplitLeadership.for).toBe("5m");
    expect(byName.AirlockLeaseFlapping.expr).toContain(
      `sum(increase(airlock_lease_transitions_total{${selector}, transition="acquired"}[1h]))`,
    );
    const lag = byName.AirlockReplicationLag;
    expect(lag.expr).toBe(`max by (pod) (airlock_replication_lag_seconds{${selector}}) > 30`);
    expect(lag.for).toBe("2m");
    expect(lag.labels.severity).toBe("warning");
    expect(lag.annotations.summary).toBe("Replica {{ $labels.pod }} lags the shared event log");
    expect(lag.annotations.description).toContain("for more than 30 seconds");
  });

  it("leaves the split-leadership alert out without coordination, where a rollout overlaps two holders", () => {
    const objects = template("--set", "prometheusRule.enabled=true");
    for (const object of objects) validateObject(object);
    const rule: Any = find(objects, "PrometheusRule");
    const alerts = rule.spec.groups[0].rules.map((r: Any) => r.alert);
    expect(alerts).toContain("AirlockNoLeaseHolder");
    expect(alerts).toContain("AirlockReplicationLag");
    expect(alerts).not.toContain("AirlockSplitLeadership");
  });

  it("refuses a lease or lag alert setting outside the schema", () => {
    expect(templateFailure("--set", "prometheusRule.noLeaseHolder.for=soon")).toContain(
      "at '/prometheusRule/noLeaseHolder/for'",
    );
    expect(templateFailure("--set", "prometheusRule.replicationLag.threshold=0")).toContain(
      "at '/prometheusRule/replicationLag/threshold'",
    );
  });

  it("uses in alerts and the dashboard only metric names the gateway emits", async () => {
    const metrics = new PromGatewayMetrics({ servers: () => [], groups: () => [] });
    const emitted = new Set<string>(["up"]);
    for (const metric of await metrics.registry.getMetricsAsJSON()) {
      emitted.add(metric.name);
      if (String(metric.type) === "histogram") {
        for (const suffix of ["_bucket", "_sum", "_count"]) emitted.add(metric.name + suffix);
      }
    }
    const objects = template("-f", MULTI_REPLICA);
    const rule: Any = find(objects, "PrometheusRule");
    const dashboard = JSON.parse(readFileSync(join(CHART, "files/dashboard.json"), "utf8"));
    const expressions: string[] = [
      ...rule.spec.groups[0].rules.map((r: Any) => r.expr),
      ...dashboard.panels.flatMap((p: Any) => p.targets.map((t: Any) => t.expr)),
      ...dashboard.templating.list.filter((v: Any) => v.type === "query").map((v: Any) => v.query.query),
    ];
    const used = new Set(
      expressions.flatMap((e) => e.match(/\b(?:airlock|process|nodejs)_[a-z0-9_]+/g) ?? []),
    );
    expect(used.size).toBeGreaterThan(5);
    // The lease, replication, fleet, session and reload metrics are among them (alerts or dashboard).
    for (const name of [
      "airlock_lease_holder",
      "airlock_lease_transitions_total",
      "airlock_replication_lag_seconds",
      "airlock_events_appended_total",
      "airlock_lease_losses_total",
      "airlock_lease_renewal_failures_total",
      "airlock_config_last_reload_successful",
      "airlock_config_reloads_total",
      "airlock_mcp_server_calls_in_flight",
      "airlock_mcp_server_cold_start_duration_seconds_bucket",
      "airlock_mcp_sessions_open",
    ]) {
      expect(used).toContain(name);
    }
    expect([...used].filter((name) => !emitted.has(name))).toEqual([]);
    // The dashboard's ConfigMap carries the same file.
    const board = find(objects, "ConfigMap", "rel-airlock-dashboard");
    expect(JSON.parse(board.data?.["airlock.json"] ?? "")).toEqual(dashboard);
  });

  it("documents every value in the chart's README", () => {
    const values = parseYaml(readFileSync(join(CHART, "values.yaml"), "utf8"));
    const readme = readFileSync(join(CHART, "README.md"), "utf8");
    const missing = leafPaths(values).filter((path) => !readme.includes(`\`${path}\``));
    expect(missing).toEqual([]);
  });
});

/** Values documented as a whole (a Kubernetes or gateway structure passed through as written). */
const WHOLE = new Set([
  "config",
  "resources",
  "podSecurityContext",
  "securityContext",
  "secrets.oidc.items",
  "grafanaDashboard.labels",
  "ingress.streamAnnotations",
]);

/** Dotted paths of the values' leaves, stopping at the values documented as a whole. */
function leafPaths(value: unknown, prefix = ""): string[] {
  if (WHOLE.has(prefix) || value === null || typeof value !== "object" || Array.isArray(value))
    return [prefix];
  const entries = Object.entries(value);
  if (entries.length === 0) return [prefix];
  return entries.flatMap(([key, child]) => leafPaths(child, prefix ? `${prefix}.${key}` : key));
}
