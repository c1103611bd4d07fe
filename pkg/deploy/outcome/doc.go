// Package outcome is what an operation of pkg/deploy returns, below the operations and the
// queue: an Outcome (the target, how it ended, why, the engine's result, how long it took) and
// the results each operation adds to it in their own types (FieldDrift for drift, Disagreement
// for an adoption, StackStatus for status, PlannedStack for a saved plan, Orphan for a stopped
// rotation's pools), with StackFunc, the one signature every operation has for a Queue. What code
// decides by travels typed, beside the words said for people: a stack's Verdict, a condition's
// Reason.
package outcome
