/**
 * Short words for an approval reason's typed code, for the approvals list, where each reason takes one line; the
 * reason's own sentence is shown in place by the row's "Full reasons" button, and listed in the decision dialog.
 * Codes of the gpu backend's admission: `over-quota`, `over-budget`, `over-budget-this-month`, `spot-in-production`,
 * `over-pool-capacity`, and `policy` (the quote's policy findings: a tier the environment does not allow, dedicated
 * GPUs above the limit).
 */
const WORDS: Record<string, string> = {
  'over-quota': 'Over quota',
  'over-budget': 'Over monthly budget',
  'over-budget-this-month': 'Over budget this month',
  'spot-in-production': 'Spot pool in production',
  'over-pool-capacity': 'Pool is full',
  policy: 'Outside policy',
};

/** The reason's short words; an unknown code (a newer backend) shows its sentence, cut to the line. */
export function approvalReasonWords(reason: {
  code: string;
  message: string;
}): string {
  return WORDS[reason.code] ?? reason.message;
}
