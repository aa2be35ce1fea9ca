import type { InstanceInfo } from "../services.js";

/**
 * Where the answering replica stands among its peers (`/system` `instance`, the `replica` blocks
 * of `gateway_status` and `gateway_health`). Read at each call: `manages_fleet` changes live with
 * the management lease.
 */
export function instanceCoordinates(instance: InstanceInfo) {
  return {
    instance_id: instance.instance_id,
    coordinates_with_peers: instance.coordinates_with_peers,
    manages_fleet: instance.manages_fleet,
    storage_is_shareable: instance.storage_is_shareable,
    rate_limits_are_per_instance: instance.rate_limits_are_per_instance,
  };
}
