/** How a request tried to authenticate: the `auth_method` of an authentication outcome. */
export type AuthMethod = "api_key" | "jwt" | "session" | "none";
