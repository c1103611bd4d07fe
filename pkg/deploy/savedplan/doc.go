// Package savedplan is a saved plan: what `preview --save-plan` writes (Plan, one PlannedStack a
// stack, with digests of each manifest and its fields) and `up --plan` reads back, and the
// comparisons that tell whether a stack still matches its part (EditedFields, StepsDiffer). It
// needs no Deployer: pkg/deploy's PreviewPlan and CheckPlan fill and check it, and PlanGuard
// holds up to it.
package savedplan
