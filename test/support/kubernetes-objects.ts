import { Deployment } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ConfigMap, PersistentVolumeClaim, Pod, Service, ServiceAccount } from "kubernetes-models/v1";
import * as z from "zod";

/** A rendered Kubernetes object: what every manifest has before its kind says more. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

type Validator = (object: KubeObject) => void;

/** Built-in kinds: validated against the Kubernetes OpenAPI schemas that kubernetes-models ships. */
const BUILT_IN: Record<string, Validator> = {
  "v1/ConfigMap": (o) => new ConfigMap(o as never).validate(),
  "v1/Service": (o) => new Service(o as never).validate(),
  "v1/ServiceAccount": (o) => new ServiceAccount(o as never).validate(),
  "v1/Pod": (o) => new Pod(o as never).validate(),
  "apps/v1/Deployment": (o) => new Deployment(o as never).validate(),
  "autoscaling/v2/HorizontalPodAutoscaler": (o) => new HorizontalPodAutoscaler(o as never).validate(),
  "policy/v1/PodDisruptionBudget": (o) => new PodDisruptionBudget(o as never).validate(),
  "networking.k8s.io/v1/NetworkPolicy": (o) => new NetworkPolicy(o as never).validate(),
  "networking.k8s.io/v1/Ingress": (o) => new Ingress(o as never).validate(),
  "v1/PersistentVolumeClaim": (o) => new PersistentVolumeClaim(o as never).validate(),
};

/**
 * The Prometheus Operator's kinds are CRDs, which kubernetes-models does not ship: their shape is
 * checked by these schemas instead, written from the operator's API reference for the fields the
 * chart renders (strict where the chart writes the object, so a misspelt field fails).
 */
const duration = z.string().regex(/^(\d+(ms|s|m|h|d|w|y))+$/, "must be a Prometheus duration");
const labels = z.record(z.string(), z.string());
const metadata = z.looseObject({ name: z.string().min(1), labels: labels.optional() });
const secretKey = z.strictObject({ name: z.string().min(1), key: z.string().min(1) });

const serviceMonitor = z.strictObject({
  apiVersion: z.literal("monitoring.coreos.com/v1"),
  kind: z.literal("ServiceMonitor"),
  metadata,
  spec: z.strictObject({
    selector: z.strictObject({ matchLabels: labels }),
    endpoints: z
      .array(
        z.strictObject({
          port: z.string().min(1),
          path: z.string().startsWith("/"),
          interval: duration,
          scrapeTimeout: duration,
          authorization: z.strictObject({ type: z.string().optional(), credentials: secretKey }).optional(),
        }),
      )
      .min(1),
  }),
});

const rule = z.union([
  z.strictObject({
    alert: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
    expr: z.string().min(1),
    for: duration.optional(),
    labels: labels.optional(),
    annotations: labels.optional(),
  }),
  z.strictObject({ record: z.string().min(1), expr: z.string().min(1), labels: labels.optional() }),
]);

const prometheusRule = z.strictObject({
  apiVersion: z.literal("monitoring.coreos.com/v1"),
  kind: z.literal("PrometheusRule"),
  metadata,
  spec: z.strictObject({
    groups: z.array(z.strictObject({ name: z.string().min(1), rules: z.array(rule).min(1) })).min(1),
  }),
});

/** Gateway API duration (GEP-2257): up to four number-unit pairs. */
const gatewayDuration = z.string().regex(/^([0-9]{1,5}(h|m|s|ms)){1,4}$/, "must be a Gateway API duration");

/** Gateway API's HTTPRoute (a CRD), for the fields the chart renders, from its v1 API reference. */
const httpRoute = z.strictObject({
  apiVersion: z.literal("gateway.networking.k8s.io/v1"),
  kind: z.literal("HTTPRoute"),
  metadata,
  spec: z.strictObject({
    parentRefs: z
      .array(
        z.strictObject({
          group: z.string().optional(),
          kind: z.string().optional(),
          name: z.string().min(1),
          namespace: z.string().optional(),
          sectionName: z.string().optional(),
          port: z.number().int().optional(),
        }),
      )
      .min(1)
      .max(32),
    hostnames: z.array(z.string().min(1)).max(16).optional(),
    rules: z
      .array(
        z.strictObject({
          matches: z.array(
            z.strictObject({
              path: z.strictObject({
                type: z.enum(["Exact", "PathPrefix", "RegularExpression"]),
                value: z.string().startsWith("/"),
              }),
            }),
          ),
          backendRefs: z.array(z.strictObject({ name: z.string().min(1), port: z.number().int() })).min(1),
          timeouts: z
            .strictObject({ request: gatewayDuration.optional(), backendRequest: gatewayDuration.optional() })
            .optional(),
        }),
      )
      .min(1),
  }),
});

const CUSTOM: Record<string, Validator> = {
  "gateway.networking.k8s.io/v1/HTTPRoute": (o) => void httpRoute.parse(o),
  "monitoring.coreos.com/v1/ServiceMonitor": (o) => void serviceMonitor.parse(o),
  "monitoring.coreos.com/v1/PrometheusRule": (o) => void prometheusRule.parse(o),
};

/** Validates one object by its apiVersion and kind; an unknown kind is an error, never a pass. */
export function validateObject(object: KubeObject): void {
  const key = `${object.apiVersion}/${object.kind}`;
  const validator = BUILT_IN[key] ?? CUSTOM[key];
  if (!validator)
    throw new Error(`no schema for ${key} (${object.metadata?.name}): add one before rendering it`);
  try {
    validator(object);
  } catch (error) {
    throw new Error(
      `${key} ${object.metadata.name}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
