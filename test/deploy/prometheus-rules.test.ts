import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { helmBinary, runHelm } from "../support/helm.js";
import type { KubeObject } from "../support/kubernetes-objects.js";
import { describePromtool, promtool } from "../support/promtool.js";

const CHART = resolve("helm/airlock");
const MULTI_REPLICA = join(CHART, "ci/multi-replica-values.yaml");

interface Rule {
  alert?: string;
  expr: string;
  annotations?: Record<string, string>;
}
interface RuleSpec {
  groups: { name: string; rules: Rule[] }[];
}

let helm: string;
/** Rule and test files handed to promtool, removed after the suite. */
let scratch: string;
beforeAll(() => {
  helm = helmBinary();
  scratch = mkdtempSync(join(tmpdir(), "airlock-rules-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The `spec` of the chart's PrometheusRule, rendered with `args`. */
function renderedRules(...args: string[]): RuleSpec {
  const result = runHelm(helm, [
    "template",
    "rel",
    CHART,
    "--namespace",
    "gw",
    "--set",
    "prometheusRule.enabled=true",
    ...args,
  ]);
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const rule = parseAllDocuments(result.stdout)
    .map((document) => document.toJS() as (KubeObject & { spec?: RuleSpec }) | null)
    .find((object) => object?.kind === "PrometheusRule");
  if (!rule?.spec) throw new Error("no PrometheusRule rendered");
  return rule.spec;
}

/** The anchors GitHub gives the headings of a Markdown document (lower case, spaces to dashes). */
function headingAnchors(markdown: string): Set<string> {
  return new Set(
    [...markdown.matchAll(/^#{1,6} +(.+)$/gm)].map((match) =>
      (match[1] as string)
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );
}

const CASES = [
  ["the default values", []],
  ["the multi-replica values (coordination)", ["-f", MULTI_REPLICA]],
] as const;

describePromtool("the chart's alerting rules, checked by promtool", () => {
  it.each(CASES)("pass promtool check rules with %s", (_name, args) => {
    const dir = mkdtempSync(join(scratch, "case-"));
    const file = join(dir, "rules.yaml");
    writeFileSync(file, stringify(renderedRules(...args)));
    const checked = promtool(["check", "rules", file]);
    expect(checked.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(checked.code).toBe(0);
  });

  it("fire for a dead server, a failed reload and a lease lost other than at shutdown (promtool test rules)", () => {
    const dir = mkdtempSync(join(scratch, "case-"));
    // Annotations are left out: the test is about what fires, and promtool compares them too.
    const spec = renderedRules("-f", MULTI_REPLICA);
    for (const group of spec.groups) for (const rule of group.rules) delete rule.annotations;
    writeFileSync(join(dir, "rules.yaml"), stringify(spec));
    const sel = 'job="rel-airlock",namespace="gw"';
    const tests = {
      rule_files: ["rules.yaml"],
      evaluation_interval: "1m",
      tests: [
        {
          interval: "1m",
          input_series: [
            {
              series: `airlock_mcp_server_state{${sel},pod="a",mcp_server="math",state="dead"}`,
              values: "0 1 1 1 1 1",
            },
            {
              series: `airlock_mcp_server_state{${sel},pod="a",mcp_server="text",state="dead"}`,
              values: "0 0 0 0 0 0",
            },
            { series: `airlock_config_last_reload_successful{${sel},pod="a"}`, values: "1 1 0 0 0 0" },
            { series: `airlock_config_last_reload_successful{${sel},pod="b"}`, values: "1 1 1 1 1 1" },
            { series: `airlock_lease_losses_total{${sel},pod="a",reason="shutdown"}`, values: "0 1 1 1 1 1" },
            {
              series: `airlock_lease_losses_total{${sel},pod="b",reason="renewal_refused"}`,
              values: "0 0 0 0 1 1",
            },
          ],
          alert_rule_test: [
            {
              eval_time: "3m",
              alertname: "AirlockMcpServerDead",
              exp_alerts: [{ exp_labels: { severity: "critical", mcp_server: "math" } }],
            },
            {
              eval_time: "3m",
              alertname: "AirlockConfigReloadFailed",
              exp_alerts: [{ exp_labels: { severity: "warning", pod: "a" } }],
            },
            // A shutdown moves the lease on purpose: no alert.
            { eval_time: "3m", alertname: "AirlockLeaseLost", exp_alerts: [] },
            {
              eval_time: "5m",
              alertname: "AirlockLeaseLost",
              exp_alerts: [{ exp_labels: { severity: "warning" } }],
            },
          ],
        },
      ],
    };
    writeFileSync(join(dir, "tests.yaml"), stringify(tests));
    const tested = promtool(["test", "rules", join(dir, "tests.yaml")]);
    expect(tested.output).toContain("SUCCESS");
    expect(tested.code).toBe(0);
  });

  it("refuses a broken rule, so that the check above can fail", () => {
    const dir = mkdtempSync(join(scratch, "case-"));
    const file = join(dir, "rules.yaml");
    const spec = renderedRules(
      "--set-json",
      'prometheusRule.additionalRules=[{"alert":"Broken","expr":"sum(rate(x[5m]"}]',
    );
    writeFileSync(file, stringify(spec));
    expect(promtool(["check", "rules", file]).code).not.toBe(0);
  });
});

it("gives every alert a runbook_url whose section exists in docs/runbooks.md", () => {
  const anchors = headingAnchors(readFileSync("docs/runbooks.md", "utf8"));
  const rules = renderedRules("-f", MULTI_REPLICA).groups.flatMap((group) => group.rules);
  const alerts = rules.filter((rule) => rule.alert !== undefined);
  expect(alerts.length).toBeGreaterThanOrEqual(13);
  for (const alert of alerts) {
    const url = alert.annotations?.runbook_url ?? "";
    expect(url, alert.alert).toBe(`docs/runbooks.md#${alert.alert?.toLowerCase()}`);
    expect(anchors, `${alert.alert}: no section #${url.split("#")[1]}`).toContain(url.split("#")[1]);
  }
  // Dead and degraded servers, failed reloads and the lease have alerts of their own.
  expect(alerts.map((alert) => alert.alert)).toEqual(
    expect.arrayContaining([
      "AirlockMcpServerDead",
      "AirlockMcpServerDegraded",
      "AirlockCircuitOpen",
      "AirlockConfigReloadFailed",
      "AirlockNoLeaseHolder",
      "AirlockLeaseLost",
      "AirlockLeaseRenewalFailures",
    ]),
  );
});

it("lists every alert in docs/metrics.md with its runbook link", () => {
  const doc = readFileSync("docs/metrics.md", "utf8");
  const rules = renderedRules("-f", MULTI_REPLICA).groups.flatMap((group) => group.rules);
  for (const { alert } of rules) {
    if (alert === undefined) continue;
    const row = doc.split("\n").find((line) => line.startsWith(`| \`${alert}\``));
    expect(row, alert).toContain(`(runbooks.md#${alert.toLowerCase()})`);
  }
});

it("points runbook_url at prometheusRule.runbookBaseUrl when it is set", () => {
  const base = "https://docs.example.com/airlock/runbooks.html";
  const rules = renderedRules("--set", `prometheusRule.runbookBaseUrl=${base}`).groups[0]?.rules ?? [];
  const dead = rules.find((rule) => rule.alert === "AirlockMcpServerDead");
  expect(dead?.annotations?.runbook_url).toBe(`${base}#airlockmcpserverdead`);
  expect(dead?.expr).toBe(
    'max by (mcp_server) (airlock_mcp_server_state{job="rel-airlock", namespace="gw", state="dead"}) == 1',
  );
});
