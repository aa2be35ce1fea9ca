/**
 * The secret pattern groups an L7 egress policy may name in `arguments.secretPatterns`. Each group
 * is a small set of deterministic expressions for one kind of credential, written to match the
 * credential's published format and nothing looser: a near miss (a publishable key, a prefix with too
 * few characters, prose mentioning "bearer") is not a secret.
 *
 * Every expression is anchored on a literal prefix and uses bounded or single-class repetition, so
 * one test is linear in the text scanned. None carries the `g` flag: `test` keeps no state.
 */

/** A boundary before a token: not preceded by a character the token itself may contain. */
const ALNUM_BEFORE = "(?<![A-Za-z0-9_])";

export const SECRET_PATTERN_GROUPS = {
  /** Access key ids (`AKIA...`, temporary `ASIA...`) and secret access keys named as such. */
  "aws-keys": [
    /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16}(?![A-Za-z0-9])/,
    /(?:aws_?)?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/i,
  ],
  /** Signed JSON Web Tokens: header and payload are base64url JSON objects (`eyJ`), then a signature. */
  jwt: [/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/],
  /** PEM private keys of any algorithm (`RSA`, `EC`, `OPENSSH`, `ENCRYPTED`, PGP key blocks). */
  "pem-blocks": [/-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/],
  /** Classic tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`) and fine-grained `github_pat_` tokens. */
  "github-tokens": [
    new RegExp(`${ALNUM_BEFORE}gh[pousr]_[A-Za-z0-9]{36,}`),
    new RegExp(`${ALNUM_BEFORE}github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![A-Za-z0-9_])`),
  ],
  /** Secret and restricted keys, live and test; publishable `pk_` keys are public and not matched. */
  "stripe-keys": [new RegExp(`${ALNUM_BEFORE}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`)],
  /** Bot, user, app and refresh tokens, app-level tokens and incoming-webhook URLs. */
  "slack-tokens": [
    /(?<![A-Za-z0-9])xox[abposre]-\d+-[A-Za-z0-9-]{8,}/,
    /(?<![A-Za-z0-9])xapp-\d-[A-Z0-9]+-\d+-[A-Za-z0-9]{16,}/,
    /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/T[A-Z0-9]+\/[A-Z0-9]+\/[A-Za-z0-9]{16,}/,
  ],
  /** Google API keys: `AIza` and 35 characters. */
  "google-api-keys": [/(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/],
  /**
   * `Bearer <token>` credentials (an Authorization value): a token of at least 16 token characters
   * holding a digit, so prose ("the bearer of this letter", "Bearer token") is not one.
   */
  "bearer-tokens": [/(?<![A-Za-z0-9])bearer[ \t]+(?=[A-Za-z._~+/-]*[0-9])[A-Za-z0-9._~+/-]{16,}/i],
  /** Granular access tokens (`npm_` and 36 characters) and `_authToken=` lines of an `.npmrc`. */
  "npm-tokens": [
    new RegExp(`${ALNUM_BEFORE}npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])`),
    /_authToken\s*=\s*[A-Za-z0-9][A-Za-z0-9._-]{19,}/,
  ],
  /** PyPI and TestPyPI API tokens: macaroons serialized as `pypi-AgE...`. */
  "pypi-tokens": [/(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50,}/],
} as const satisfies Record<string, readonly RegExp[]>;

export type SecretPatternGroup = keyof typeof SECRET_PATTERN_GROUPS;

/** The group names, in the order of the table (documentation and error messages list them so). */
export const SECRET_PATTERN_GROUP_NAMES = Object.keys(SECRET_PATTERN_GROUPS) as SecretPatternGroup[];

export function isSecretPatternGroup(name: string): name is SecretPatternGroup {
  return Object.hasOwn(SECRET_PATTERN_GROUPS, name);
}

/**
 * The groups, of those given, with a match in `text`, in the order given. Only group names leave
 * this function: the matched text is never returned, so it cannot reach a log, an event or an error.
 */
export function secretGroupsIn(text: string, groups: readonly SecretPatternGroup[]): SecretPatternGroup[] {
  if (groups.length === 0) return [];
  return groups.filter((group) => SECRET_PATTERN_GROUPS[group].some((pattern) => pattern.test(text)));
}

/** Separates the strings of the arguments in the scanned text: no pattern matches across it. */
const SEPARATOR = "\u0000";

/**
 * The groups found anywhere in a tool call's arguments, however deeply nested: every string (object
 * keys included) is scanned as it is, not as JSON-escaped text (so a token after a newline is still
 * at a token boundary), and a string property as `<key>=<value>`, so that credentials recognised by
 * their name (an AWS secret access key) are found in `{"aws_secret_access_key": "..."}` too.
 * `args` must be JSON-encodable (no cycles): the caller encodes them first.
 */
export function secretGroupsInArguments(
  args: unknown,
  groups: readonly SecretPatternGroup[],
): SecretPatternGroup[] {
  if (groups.length === 0) return [];
  const parts: string[] = [];
  const pending: unknown[] = [args];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") parts.push(value);
    else if (Array.isArray(value)) {
      // One at a time: spreading a very long array into push() exceeds the argument limit.
      for (const item of value) pending.push(item);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, inner] of Object.entries(value)) {
        if (typeof inner === "string") parts.push(`${key}=${inner}`);
        else {
          parts.push(key);
          pending.push(inner);
        }
      }
    }
  }
  return secretGroupsIn(parts.join(SEPARATOR), groups);
}
