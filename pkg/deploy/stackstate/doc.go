// Package stackstate is a stack as pkg/deploy's operations see it, below them all: the Backend
// that opens stacks, a Stack's engine operations and what they report (Options, Result, Step,
// Update, Output), its state as exported (State: resources, pending creates, outputs) and its
// history, and the typed errors through which an operation says a fault a user can mend.
package stackstate
