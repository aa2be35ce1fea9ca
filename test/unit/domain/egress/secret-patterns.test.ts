import { describe, expect, it } from "vitest";
import {
  SECRET_PATTERN_GROUP_NAMES,
  type SecretPatternGroup,
  secretGroupsInArguments,
} from "../../../../src/domain/egress/secret-patterns.js";

/**
 * Realistic credential shapes, assembled from parts here so that no complete token is written in the
 * repository (every one is fake: deterministic filler characters).
 */
const ALNUM = "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v2W3x4Y5z6";
const fill = (length: number, from = ALNUM) => from.repeat(Math.ceil(length / from.length)).slice(0, length);
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

const SAMPLES: Record<SecretPatternGroup, string[]> = {
  "aws-keys": [
    `AKIA${"IOSFODNN7EXAMPLE"}`,
    `ASIA${"Y34FZKBOKMUTVV7A"}`,
    `aws_secret_access_key = ${"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}`,
  ],
  jwt: [
    `${base64url({ alg: "HS256", typ: "JWT" })}.${base64url({ sub: "1234567890", name: "x" })}.${fill(43)}`,
  ],
  "pem-blocks": [
    `-----BEGIN ${"RSA PRIVATE"} KEY-----\nMIIEowIBAAKCAQEA${fill(40)}\n-----END RSA PRIVATE KEY-----`,
    `-----BEGIN ${"OPENSSH PRIVATE"} KEY-----`,
    `-----BEGIN ${"PRIVATE"} KEY-----`,
    `-----BEGIN PGP ${"PRIVATE"} KEY BLOCK-----`,
  ],
  "github-tokens": [
    `gh${"p"}_${fill(36)}`,
    `gh${"s"}_${fill(36)}`,
    `github_${"pat"}_${fill(22)}_${fill(59)}`,
  ],
  "stripe-keys": [`s${"k"}_live_${fill(24)}`, `r${"k"}_test_${fill(24)}`],
  "slack-tokens": [
    `xox${"b"}-123456789012-1234567890123-${fill(24)}`,
    `xox${"p"}-123456789012-123456789012-123456789012-${fill(32, "0123456789abcdef")}`,
    `https://hooks.slack.com/services/T0${"1234567"}/B0${"1234567"}/${fill(24)}`,
  ],
  "google-api-keys": [`AI${"za"}Sy${fill(33)}`],
  "bearer-tokens": [`Authorization: Bearer ${fill(32)}`, `bearer\t${fill(20)}.${fill(20)}`],
  "npm-tokens": [
    `np${"m"}_${fill(36)}`,
    `//registry.npmjs.org/:_auth${"Token"}=0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0`,
  ],
  "pypi-tokens": [`py${"pi"}-AgEIcHlwaS5vcmc${fill(60)}`],
};

/** Strings that look close to a credential and are not one (or are public). */
const NEAR_MISSES: Record<SecretPatternGroup, string[]> = {
  "aws-keys": [
    `AKIA${"IOSFODNN7EXAMP"}`,
    `akia${"iosfodnn7example"}`,
    `XAKIA${"IOSFODNN7EXAMPLE"}`,
    "secret_access_key = short",
  ],
  jwt: [`${base64url({ alg: "none" })}.${base64url({ sub: "1" })}.`, "eyJ.eyJ.abc", "version 1.2.3"],
  "pem-blocks": [
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----",
    "a private key is not in this sentence",
  ],
  "github-tokens": [`gh${"p"}_${fill(20)}`, `gh${"x"}_${fill(36)}`, `github_${"pat"}_${fill(10)}`],
  "stripe-keys": [`p${"k"}_live_${fill(24)}`, `s${"k"}_live_short`, `s${"k"}_prod_${fill(24)}`],
  "slack-tokens": [`xox${"b"}-not-a-token-at-all`, "https://hooks.slack.com/services/", "xoxo-hugs"],
  "google-api-keys": [`AI${"za"}Sy${fill(20)}`, `AI${"za"}Sy${fill(40)}`],
  "bearer-tokens": [
    "the bearer of this letter is a friend",
    "Bearer token",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder as configuration files write it
    "Authorization: Bearer ${TOKEN}",
    `Bearer ${"abcdefghijklmnopqrstuvwxyz"}`,
  ],
  "npm-tokens": [
    `np${"m"}_${fill(10)}`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder as an .npmrc writes it
    "_authToken=${NPM_TOKEN}",
    "npm install left-pad",
  ],
  "pypi-tokens": ["pypi-package-name", `py${"pi"}-AgE${fill(10)}`],
};

/** The sample buried in an argument structure: in a list of objects inside an object. */
const nested = (secret: string) => ({
  query: "select 1",
  options: { items: [{ note: "x" }, { body: secret }] },
});

describe("secret pattern groups", () => {
  it("covers exactly the ten groups of the policy format", () => {
    expect(SECRET_PATTERN_GROUP_NAMES).toEqual([
      "aws-keys",
      "jwt",
      "pem-blocks",
      "github-tokens",
      "stripe-keys",
      "slack-tokens",
      "google-api-keys",
      "bearer-tokens",
      "npm-tokens",
      "pypi-tokens",
    ]);
  });

  for (const group of SECRET_PATTERN_GROUP_NAMES) {
    it(`${group}: finds every sample deep inside the arguments`, () => {
      for (const sample of SAMPLES[group]) {
        expect([sample.slice(0, 12), secretGroupsInArguments(nested(sample), [group])]).toEqual([
          sample.slice(0, 12),
          [group],
        ]);
      }
    });

    it(`${group}: ignores near misses`, () => {
      for (const sample of NEAR_MISSES[group]) {
        expect([sample, secretGroupsInArguments(nested(sample), [group])]).toEqual([sample, []]);
      }
    });
  }

  it("finds a secret only for the groups the policy lists", () => {
    const args = nested(SAMPLES["aws-keys"][0]!);
    expect(secretGroupsInArguments(args, ["github-tokens", "jwt"])).toEqual([]);
    expect(secretGroupsInArguments(args, [])).toEqual([]);
  });

  it("finds a token after a newline, in an object key, and in a list of strings", () => {
    const token = SAMPLES["github-tokens"][0]!;
    expect(secretGroupsInArguments({ text: `line one\n${token}` }, ["github-tokens"])).toEqual([
      "github-tokens",
    ]);
    expect(secretGroupsInArguments({ [token]: 1 }, ["github-tokens"])).toEqual(["github-tokens"]);
    expect(secretGroupsInArguments(["a", ["b", token]], ["github-tokens"])).toEqual(["github-tokens"]);
  });

  it("recognises a secret access key by its property name", () => {
    const args = { config: { aws_secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" } };
    expect(secretGroupsInArguments(args, ["aws-keys"])).toEqual(["aws-keys"]);
    expect(
      secretGroupsInArguments({ config: { colour: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" } }, [
        "aws-keys",
      ]),
    ).toEqual([]);
  });

  it("does not match across two separate strings", () => {
    expect(secretGroupsInArguments({ a: "Bearer", b: fill(32) }, ["bearer-tokens"])).toEqual([]);
    expect(secretGroupsInArguments(["Bearer", fill(32)], ["bearer-tokens"])).toEqual([]);
  });

  it("scans a long argument list in linear time", () => {
    const args = { rows: Array.from({ length: 200_000 }, (_, i) => `row ${i} AKIA`) };
    const began = performance.now();
    expect(secretGroupsInArguments(args, SECRET_PATTERN_GROUP_NAMES)).toEqual([]);
    expect(performance.now() - began).toBeLessThan(2_000);
  });
});
