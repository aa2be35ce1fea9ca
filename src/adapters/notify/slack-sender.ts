import type { ApprovalNotice, ChannelSender, DeliveryOutcome } from "../../app/ports/approval-delivery.js";
import { deliverJson } from "./http-post.js";

export interface SlackSettings {
  /** `approvals.slack.webhook_url`: a Slack incoming-webhook URL (it is itself a secret). */
  readonly webhookUrl: string;
  readonly timeoutMs: number;
}

/** Slack truncates long messages; the arguments block is cut well below its section limit. */
const MAX_ARGUMENTS_CHARS = 2_500;

/** Slack mrkdwn control characters (https://api.slack.com/reference/surfaces/formatting#escaping). */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The message: what is held, by whom, until when, the redacted arguments, how to decide. */
export function slackMessage(notice: ApprovalNotice): Record<string, unknown> {
  const { approval } = notice;
  const args = JSON.stringify(approval.arguments, null, 2);
  const shown = args.length > MAX_ARGUMENTS_CHARS ? `${args.slice(0, MAX_ARGUMENTS_CHARS)}\n…` : args;
  const expires = Math.floor(approval.expires_at);
  const tenant = approval.tenant_id === null ? "" : ` (tenant \`${escapeMrkdwn(approval.tenant_id)}\`)`;
  const summary = `Approval needed: ${approval.tool_name} on ${approval.mcp_server_id}`;
  return {
    text: escapeMrkdwn(summary),
    blocks: [
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text:
            `*Approval needed*: \`${escapeMrkdwn(approval.tool_name)}\` on \`${escapeMrkdwn(approval.mcp_server_id)}\`\n` +
            `Requested by \`${escapeMrkdwn(approval.requested_by)}\`${tenant}\n` +
            `Expires <!date^${expires}^{date_short_pretty} {time_secs}|${new Date(expires * 1000).toISOString()}>\n` +
            `Approval id: \`${escapeMrkdwn(approval.approval_id)}\``,
        },
      },
      { type: "section", text: { type: "mrkdwn", text: `\`\`\`${escapeMrkdwn(shown)}\`\`\`` } },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: escapeMrkdwn(
              `Decide with POST /api/approvals/${approval.approval_id}/resolve ` +
                `{"decision": "approve" | "deny"}, or a signed callback to /hooks/approvals.`,
            ),
          },
        ],
      },
    ],
  };
}

/** Channel `slack`: one incoming-webhook POST per attempt. */
export class SlackSender implements ChannelSender {
  readonly channel = "slack";

  constructor(private readonly settings: SlackSettings) {}

  send(notice: ApprovalNotice): Promise<DeliveryOutcome> {
    return deliverJson(
      this.settings.webhookUrl,
      JSON.stringify(slackMessage(notice)),
      {},
      this.settings.timeoutMs,
    );
  }
}
