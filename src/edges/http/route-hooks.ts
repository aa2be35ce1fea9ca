/**
 * A route's own hooks (`onRequest`, `onResponse`, ... as fastify's `onRoute` hands them: absent,
 * one, or a list) as a list, so a hook of the gateway's can be put before or after them.
 */
export function hooksOf<T>(hooks: T | T[] | undefined): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}
