// Package operation names what a run does to each stack. The pipeline takes its checks before
// the engine from it, the run's report records it, and the rendering words its rows by it: each
// compares a typed value, so a misspelt operation does not compile rather than silently falling
// through to another's words.
package operation

// Name is an operation, spelt as the command that runs it (and as the report's "command" says it).
type Name string

// The operations a run may be.
const (
	Preview    Name = "preview"
	Up         Name = "up"
	Refresh    Name = "refresh"
	Drift      Name = "drift"
	Status     Name = "status"
	Destroy    Name = "destroy"
	Kubeconfig Name = "kubeconfig"
	Adopt      Name = "adopt"
)

// Reverse tells that the operation runs a stack's dependants before it: destroy, which must take
// a pool down before its cluster. Every other operation runs a stack's dependencies first.
func (n Name) Reverse() bool { return n == Destroy }
