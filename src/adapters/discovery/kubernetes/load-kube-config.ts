import { KubeConfig } from "@kubernetes/client-node";

export interface KubeConfigOptions {
  /**
   * A kubeconfig file to read (its current context, or `context`). Absent: the in-cluster
   * configuration, the pod's service account token and CA as Kubernetes mounts them.
   */
  readonly kubeconfigPath?: string | undefined;
  readonly context?: string | undefined;
}

/**
 * The connection of the Kubernetes discovery source. In-cluster configuration is read by the client
 * library from the service account files and the `KUBERNETES_SERVICE_*` variables Kubernetes sets;
 * a kubeconfig file may name exec or token credentials, which stay inside the returned object and
 * are never logged. Throws when a named file cannot be read or parsed. Outside a cluster with no
 * file, the returned configuration reaches nothing: the source's scans say so.
 */
export function loadKubeConfig(options: KubeConfigOptions = {}): KubeConfig {
  const config = new KubeConfig();
  if (options.kubeconfigPath) config.loadFromFile(options.kubeconfigPath);
  else config.loadFromCluster();
  if (options.context) config.setCurrentContext(options.context);
  return config;
}
