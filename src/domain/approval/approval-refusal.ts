/**
 * The answers of the approval routes that are not a success (decisions "Approvals"). These routes
 * use flat bodies `{error: '<message>'}` (spec 1 §4), so they are kept apart from the domain error
 * catalogue and its `{error:{code, message, details}}` bodies.
 */
export const APPROVAL_MESSAGES = {
  badDecision: "decision must be 'approve' or 'deny'",
  notFound: "Approval not found",
  alreadyResolved: "Approval already resolved",
  expired: "Approval expired",
  noGate: "Approval service is not enabled",
} as const;

export interface ApprovalRefusalBody {
  readonly error: string;
  /** The approval's state, where the answer names it (409). */
  readonly state?: string;
}

export class ApprovalRefusal extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 409 | 503,
    readonly body: ApprovalRefusalBody,
  ) {
    super(body.error);
    this.name = "ApprovalRefusal";
  }
}

export const approvalNotFound = (): ApprovalRefusal =>
  new ApprovalRefusal(404, { error: APPROVAL_MESSAGES.notFound });

export const noApprovalGate = (): ApprovalRefusal =>
  new ApprovalRefusal(503, { error: APPROVAL_MESSAGES.noGate });
