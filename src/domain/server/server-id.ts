/**
 * Server and group ids, wherever they come from (the configuration file, `POST /mcp_servers`,
 * discovery): they appear in URLs, tool-call routing and metric labels, so they are kept to a
 * portable alphabet, and start with a letter or digit (never `.` or `-`, so no id reads as a path
 * segment like `..` or as an option).
 */
export const SERVER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/** The rule of {@link SERVER_ID_PATTERN} in words. */
export const SERVER_ID_CHARS = "1-128 letters, digits, '_', '-' or '.', starting with a letter or digit";
