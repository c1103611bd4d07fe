// Package deploy deploys manifests through the Pulumi engine, as a library: a Target
// (deploytarget) is one manifest and its stack, a Backend (stackstate) opens stacks (package
// autostack implements it with Pulumi's Automation API, deploytest with a fake), a Queue runs an
// operation over many targets in the order their references give, and each operation (Preview,
// Up, Refresh, Drift, Status, Destroy, Kubeconfig, Adopt) returns what happened as data, an
// Outcome. Printing and exit codes are the caller's: the clusterplane command is one caller, a
// controller or a CI bot could be another.
//
// Results come from the engine's own events for the operation that ran (its summary and its
// steps), never from the stack's history, which another operator's update may have overtaken.
// Faults a user can mend are typed errors (locked, pending creates, protected, not deployed,
// refused, cancelled; package stackstate), so that each caller maps them once.
package deploy
