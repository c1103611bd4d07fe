// Package queue runs an operation over many targets, below pkg/deploy's operations: the order their
// references give (Order, Dependants), at most so many at once, each within its deadline, a failure
// skipping the stacks that depend on it, and the pacing of the requests each target asks of its
// cloud's rate limit (Pacer, Budget).
package queue
