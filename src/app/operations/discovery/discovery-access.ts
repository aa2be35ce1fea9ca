import type { DiscoveryService } from "../../discovery/discovery-service.js";
import type { AppServices } from "../../services.js";
import { notConfigured } from "../unavailable.js";

/** The discovery service, or `NotConfiguredError` on a gateway built without one. */
export function requireDiscovery(services: AppServices): DiscoveryService {
  if (!services.discovery) throw notConfigured("discovery");
  return services.discovery;
}
