/** Where every WebSocket path of the API starts. */
export const WEBSOCKET_PATHS = "/ws/";
/** `/api/ws/events`: every domain event (spec 1 "WebSocket endpoints"). */
export const EVENT_STREAM_PATH = "/ws/events";
/** `/api/ws/state` (earlier revision): state-change events only. */
export const STATE_STREAM_PATH = "/ws/state";
/** What the state stream carries: the state changes of servers and of groups. */
export const STATE_EVENT_TYPES: ReadonlySet<string> = new Set(["ProviderStateChanged", "GroupStateChanged"]);
/** `/api/ws/providers/{provider_id}/logs` (earlier revision): the stderr lines of one server. */
export const LOG_STREAM_PATH = "/ws/providers/:provider_id/logs";
