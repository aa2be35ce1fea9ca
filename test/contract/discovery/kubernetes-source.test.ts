import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { KubernetesDiscoverySource } from "../../../src/adapters/discovery/kubernetes/kubernetes-discovery-source.js";
import { loadKubeConfig } from "../../../src/adapters/discovery/kubernetes/load-kube-config.js";
import {
  type KubernetesApiFake,
  startKubernetesApiFake,
} from "../../fixtures/kubernetes-fake/kubernetes-api-fake.js";

function kubeConfigFor(server: string, token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: "fake", server, skipTLSVerify: true }],
    users: [{ name: "discovery", token }],
    contexts: [{ name: "fake", cluster: "fake", user: "discovery" }],
    currentContext: "fake",
  });
  return config;
}

const ENABLED = { "airlock.dev/enabled": "true" };

let api: KubernetesApiFake;

beforeAll(async () => {
  api = await startKubernetesApiFake({ allowedNamespaces: ["mcp", "tools"] });
});

afterAll(async () => {
  await api.close();
});

const made: Array<{ kind: "pod" | "service"; namespace: string; name: string }> = [];
afterEach(() => {
  for (const { kind, namespace, name } of made.splice(0)) {
    if (kind === "pod") api.deletePod(namespace, name);
    else api.deleteService(namespace, name);
  }
  api.failWith(undefined);
});

function pod(input: Parameters<KubernetesApiFake["addPod"]>[0]): void {
  api.addPod(input);
  made.push({ kind: "pod", namespace: input.namespace, name: input.name });
}

function service(input: Parameters<KubernetesApiFake["addService"]>[0]): void {
  api.addService(input);
  made.push({ kind: "service", namespace: input.namespace, name: input.name });
}

function source(namespaces: string[], labelSelector?: string): KubernetesDiscoverySource {
  return new KubernetesDiscoverySource({
    kubeConfig: kubeConfigFor(api.url, api.token),
    namespaces,
    labelSelector,
  });
}

const scan = (discovery: KubernetesDiscoverySource) => discovery.scan(AbortSignal.timeout(10_000));

describe("Kubernetes discovery source", () => {
  it("maps annotated running pods to their podIP and services to their cluster DNS name", async () => {
    pod({
      namespace: "mcp",
      name: "weather-7d9f",
      podIP: "10.244.1.7",
      containerPorts: [3000],
      annotations: { ...ENABLED, "airlock.dev/name": "weather", "airlock.dev/group": "forecasts" },
    });
    service({
      namespace: "tools",
      name: "search",
      ports: [80],
      annotations: { ...ENABLED, "airlock.dev/name": "search", "airlock.dev/path": "/rpc" },
    });
    service({
      namespace: "tools",
      name: "portless",
      annotations: { ...ENABLED, "airlock.dev/name": "portless", "airlock.dev/port": "9090" },
    });
    const { servers, problems } = await scan(source(["mcp", "tools"]));
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      {
        name: "portless",
        definition: { mode: "remote", endpoint: "http://portless.tools.svc:9090/mcp" },
        connectionInfo: { namespace: "tools", kind: "service", name: "portless" },
      },
      {
        name: "search",
        definition: { mode: "remote", endpoint: "http://search.tools.svc:80/rpc" },
        connectionInfo: { namespace: "tools", kind: "service", name: "search" },
      },
      {
        name: "weather",
        definition: { mode: "remote", endpoint: "http://10.244.1.7:3000/mcp" },
        connectionInfo: { namespace: "mcp", kind: "pod", name: "weather-7d9f" },
        group: "forecasts",
      },
    ]);
  });

  it("passes the label selector to the API, which applies it", async () => {
    const annotations = (name: string) => ({ ...ENABLED, "airlock.dev/name": name });
    pod({
      namespace: "mcp",
      name: "a",
      podIP: "10.0.0.1",
      labels: { app: "mcp", tier: "x" },
      annotations: annotations("a"),
    });
    pod({
      namespace: "mcp",
      name: "b",
      podIP: "10.0.0.2",
      labels: { app: "web" },
      annotations: annotations("b"),
    });
    pod({
      namespace: "mcp",
      name: "c",
      podIP: "10.0.0.3",
      labels: { app: "mcp", tier: "y" },
      annotations: annotations("c"),
    });
    const equality = await scan(source(["mcp"], "app=mcp"));
    expect(equality.servers.map((server) => server.name)).toEqual(["a", "c"]);
    const setBased = await scan(source(["mcp"], "app in (mcp,web),tier notin (y)"));
    expect(setBased.servers.map((server) => server.name)).toEqual(["a", "b"]);
    const sent = api.requests.filter((request) => request.path === "/api/v1/namespaces/mcp/pods").at(-1);
    expect(sent?.query.labelSelector).toBe("app in (mcp,web),tier notin (y)");
    expect(sent?.authorization).toBe(`Bearer ${api.token}`);
  });

  it("skips pods that are not running or are terminating, and unannotated objects", async () => {
    pod({
      namespace: "mcp",
      name: "pending",
      phase: "Pending",
      annotations: { ...ENABLED, "airlock.dev/name": "p" },
    });
    pod({
      namespace: "mcp",
      name: "done",
      phase: "Succeeded",
      podIP: "10.0.0.9",
      annotations: { ...ENABLED, "airlock.dev/name": "d" },
    });
    pod({
      namespace: "mcp",
      name: "leaving",
      podIP: "10.0.0.8",
      terminating: true,
      annotations: { ...ENABLED, "airlock.dev/name": "l" },
    });
    pod({ namespace: "mcp", name: "plain", podIP: "10.0.0.7" });
    service({
      namespace: "mcp",
      name: "off",
      annotations: { "airlock.dev/enabled": "false", "airlock.dev/name": "off" },
    });
    expect(await scan(source(["mcp"]))).toEqual({ servers: [], problems: [] });
  });

  it("reports annotations that cannot make a server, and a second object asking for a taken name", async () => {
    service({
      namespace: "mcp",
      name: "api",
      ports: [8000],
      annotations: { ...ENABLED, "airlock.dev/name": "api" },
    });
    pod({
      namespace: "mcp",
      name: "api-1",
      podIP: "10.0.0.1",
      annotations: { ...ENABLED, "airlock.dev/name": "api" },
    });
    pod({ namespace: "mcp", name: "nameless", podIP: "10.0.0.2", annotations: ENABLED });
    pod({
      namespace: "mcp",
      name: "bad-port",
      podIP: "10.0.0.3",
      annotations: { ...ENABLED, "airlock.dev/name": "bp", "airlock.dev/port": "70000" },
    });
    pod({
      namespace: "mcp",
      name: "bad-group",
      podIP: "10.0.0.4",
      annotations: { ...ENABLED, "airlock.dev/name": "bg", "airlock.dev/group": "-x" },
    });
    const { servers, problems } = await scan(source(["mcp"]));
    expect(servers.map((server) => [server.name, server.connectionInfo.kind])).toEqual([["api", "service"]]);
    expect(problems).toEqual([
      'pod "mcp/api-1": name "api" is already used by service "mcp/api"; ignored',
      expect.stringMatching(/^pod "mcp\/bad-group": airlock.dev\/group "-x" is not a valid server id/),
      'pod "mcp/bad-port": airlock.dev/port "70000" must be a port number 1-65535',
      'pod "mcp/nameless": airlock.dev/name is required',
    ]);
  });

  it("no longer finds a pod once it is deleted", async () => {
    pod({
      namespace: "mcp",
      name: "w-1",
      podIP: "10.0.0.1",
      annotations: { ...ENABLED, "airlock.dev/name": "w1" },
    });
    pod({
      namespace: "mcp",
      name: "w-2",
      podIP: "10.0.0.2",
      annotations: { ...ENABLED, "airlock.dev/name": "w2" },
    });
    const discovery = source(["mcp"]);
    expect((await scan(discovery)).servers.map((server) => server.name)).toEqual(["w1", "w2"]);
    api.deletePod("mcp", "w-1");
    expect((await scan(discovery)).servers.map((server) => server.name)).toEqual(["w2"]);
  });

  it("rejects the whole scan when one namespace is forbidden", async () => {
    pod({
      namespace: "mcp",
      name: "ok",
      podIP: "10.0.0.1",
      annotations: { ...ENABLED, "airlock.dev/name": "ok" },
    });
    await expect(scan(source(["mcp", "kube-system"]))).rejects.toThrow(
      /^the Kubernetes API answered HTTP 403 \(Forbidden\) to listing (pods|services) in namespace "kube-system"$/,
    );
  });

  it("rejects a cluster-wide scan when the account may only list some namespaces", async () => {
    await expect(scan(source([]))).rejects.toThrow(
      /HTTP 403 \(Forbidden\) to listing (pods|services) in all namespaces/,
    );
  });

  it("rejects when the API answers 500", async () => {
    api.failWith(500);
    await expect(scan(source(["mcp"]))).rejects.toThrow(/HTTP 500 \(InternalError\)/);
  });

  it("rejects without repeating the token when the credentials are refused", async () => {
    const wrong = new KubernetesDiscoverySource({
      kubeConfig: kubeConfigFor(api.url, "stolen-token-value"),
      namespaces: ["mcp"],
    });
    const failure = scan(wrong);
    await expect(failure).rejects.toThrow(/HTTP 401/);
    await expect(failure).rejects.not.toThrow(/stolen-token-value/);
  });

  it("rejects when the API cannot be reached", async () => {
    const gone = await startKubernetesApiFake();
    const url = gone.url;
    await gone.close();
    const unreachable = new KubernetesDiscoverySource({
      kubeConfig: kubeConfigFor(url, "t"),
      namespaces: ["mcp"],
    });
    await expect(scan(unreachable)).rejects.toThrow(/^cannot reach the Kubernetes API \(ECONNREFUSED\)/);
  });

  it("rejects plainly when no API is configured", async () => {
    const nowhere = new KubernetesDiscoverySource({ kubeConfig: new KubeConfig(), namespaces: [] });
    await expect(scan(nowhere)).rejects.toThrow(/^no Kubernetes API is configured/);
  });

  it("rejects a scan whose signal is already aborted", async () => {
    await expect(source(["mcp"]).scan(AbortSignal.abort())).rejects.toThrow(/was abandoned$/);
  });

  it("connects through a kubeconfig file read by loadKubeConfig", async () => {
    pod({
      namespace: "mcp",
      name: "kc",
      podIP: "10.0.0.5",
      annotations: { ...ENABLED, "airlock.dev/name": "kc" },
    });
    const dir = mkdtempSync(join(tmpdir(), "airlock-kubeconfig-"));
    try {
      const file = join(dir, "config");
      writeFileSync(
        file,
        [
          "apiVersion: v1",
          "kind: Config",
          `clusters: [{name: fake, cluster: {server: ${JSON.stringify(api.url)}, insecure-skip-tls-verify: true}}]`,
          `users: [{name: discovery, user: {token: ${JSON.stringify(api.token)}}}]`,
          "contexts: [{name: other, context: {cluster: fake, user: nobody}}, {name: fake, context: {cluster: fake, user: discovery}}]",
          "current-context: other",
        ].join("\n"),
      );
      const kubeConfig = loadKubeConfig({ kubeconfigPath: file, context: "fake" });
      const discovery = new KubernetesDiscoverySource({ kubeConfig, namespaces: ["mcp"] });
      expect((await scan(discovery)).servers.map((server) => server.name)).toEqual(["kc"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("without namespace limits", () => {
    let open: KubernetesApiFake;
    beforeAll(async () => {
      open = await startKubernetesApiFake();
    });
    afterAll(async () => {
      await open.close();
    });

    it("lists every namespace with cluster-wide calls", async () => {
      open.addPod({
        namespace: "a",
        name: "x",
        podIP: "10.1.0.1",
        annotations: { ...ENABLED, "airlock.dev/name": "ax" },
      });
      open.addService({
        namespace: "b",
        name: "y",
        ports: [81],
        annotations: { ...ENABLED, "airlock.dev/name": "by" },
      });
      const discovery = new KubernetesDiscoverySource({
        kubeConfig: kubeConfigFor(open.url, open.token),
        namespaces: [],
      });
      const { servers } = await scan(discovery);
      expect(servers.map((server) => server.definition.endpoint)).toEqual([
        "http://y.b.svc:81/mcp",
        "http://10.1.0.1:8080/mcp",
      ]);
      expect(open.requests.map((request) => request.path).sort()).toEqual([
        "/api/v1/pods",
        "/api/v1/services",
      ]);
    });
  });
});
