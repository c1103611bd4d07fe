package stackstate

import (
	"context"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
)

// Backend opens the stacks targets deploy to: a Pulumi backend (file, PostgreSQL, S3, Pulumi
// Cloud) through the Pulumi CLI in package autostack, or a fake in tests. Every backend has every
// method, and one that cannot do a thing says so with the answer its comment names: a wrapper
// that embeds a Backend then forwards all of them, and the compiler checks each backend whole.
type Backend interface {
	// Open opens stack <project>/<stack> with program as its inline program; ErrNotDeployed when
	// the stack does not exist.
	Open(ctx context.Context, project, stack string, program pulumi.RunFunc) (Stack, error)
	// Create creates stack <project>/<stack>, with program as its inline program.
	Create(ctx context.Context, project, stack string, program pulumi.RunFunc) (Stack, error)
	// Exists tells whether stack <project>/<stack> exists; an error is one that kept the backend
	// from saying (no passphrase, the backend out of reach).
	Exists(ctx context.Context, project, stack string) (bool, error)
	// Stacks are the names of the project's stacks (without the project), so that adopt can find
	// a cloud id another stack already holds; none where the backend cannot list them.
	Stacks(ctx context.Context, project string) ([]string, error)

	// ReadsRecords tells whether Records and LastUpdate may read the backend's storage itself,
	// starting no Pulumi CLI: status of a fleet then costs a file or a row read per stack, not
	// two engine processes, and the fleet scan can compare the records with the clouds' lists.
	// Where it is false they always say ErrRecordsUnread, and callers go through the stack
	// without asking.
	ReadsRecords() bool
	// Records reads stack <project>/<stack>'s records: ErrNotDeployed when the stack does not
	// exist, ErrRecordsUnread (wrapped, with why) when this backend's storage cannot be read so.
	Records(ctx context.Context, project, stack string) (Records, error)
	// LastUpdate reads stack <project>/<stack>'s last update or destroy from its history alone,
	// nil when it has none; the errors are Records'. What an adoption left is in that update's
	// message, and the state, most of what Records reads on a large stack, has no part in it.
	LastUpdate(ctx context.Context, project, stack string) (*Update, error)

	// LockStack takes the lock of stack <project>/<stack> across the several engine runs of one
	// operation, or returns a *StackBusyError at once when another holds it; ErrNoStackLock when
	// the backend cannot hold one. unlock releases it. Pulumi's own lock is taken and released by
	// each engine run, so that between the runs of one up (a rotation's record, its cloud calls,
	// the refresh and the up that follow) another up of the same stack could start its own
	// rotation: two surge pools, one record. The lock lives in the backend (a file backend's
	// folder, a PostgreSQL backend's database), so that two machines sharing one backend are held
	// apart too, and it goes with the process that holds it: a killed process leaves no lock.
	LockStack(ctx context.Context, project, stack string) (unlock func(), err error)
	// PulumiLock tells whether stack <project>/<stack>'s Pulumi lock is held without opening the
	// stack, as status reads its records, with the command that removes a lock a killed
	// operation left; known is false where the backend's locks are out of reach.
	PulumiLock(ctx context.Context, project, stack string) (held, known bool, cancel string, err error)

	// RunsProviders tells whether the backend's stacks run the clouds' provider plugins (the
	// Pulumi engine): a provider reads its cloud's API token, and without one an operation fails
	// at its first call, after the stack is recorded. A backend of stand-ins runs none and needs
	// no token.
	RunsProviders() bool

	// ID names the backend in the marks its stacks' clusters and pools carry (package
	// stackmark): its URL without credentials or options, a file backend's folder as it really
	// is (links followed).
	ID() string
}

// Stack is one stack of a backend, as the operations use it.
type Stack interface {
	// Name is the stack's name as the Pulumi CLI takes it (--stack): organization/project/stack.
	Name() string
	Preview(ctx context.Context, o Options) (Result, error)
	Up(ctx context.Context, o Options) (Result, error)
	Refresh(ctx context.Context, o Options) (Result, error)
	Destroy(ctx context.Context, o Options) (Result, error)
	// Outputs are the stack's outputs, secrets among them (Output.Secret).
	Outputs(ctx context.Context) (map[string]Output, error)
	// State reads the stack's state (its checkpoint) as `pulumi stack export` gives it, parsed;
	// Import replaces it, as `pulumi stack import` does. A state read twice with nothing written
	// between may be the same value, parsed once: read it, never change it.
	State(ctx context.Context) (State, error)
	Import(ctx context.Context, state apitype.UntypedDeployment) error
	// LastUpdate is the stack's latest update, nil when it has none.
	LastUpdate(ctx context.Context) (*Update, error)
	// Remove deletes the stack from the backend; it must hold no resources.
	Remove(ctx context.Context) error
	// History reads the stack's whole history: every operation that finished on it, refreshes
	// included, newest first, each with its Version.
	History(ctx context.Context) ([]Update, error)
	// ShareSecretsWith keeps the stack's secrets, from its next save on, under the key of stack
	// key (<project>/<stack>) where both stacks allow it, and leaves them as they are elsewhere
	// (autostack shares them under the passphrase provider): an operation on a pool then opens
	// one key for its own secrets and its cluster's, where each key is derived from the
	// passphrase at a cost.
	ShareSecretsWith(ctx context.Context, key string) error
	// Locked tells whether the stack's Pulumi lock is held: a local file or PostgreSQL backend's
	// stacks can tell (their locks are files or rows), others cannot, and say so with known false.
	Locked(ctx context.Context) (locked, known bool, err error)
	// Cancel removes the engine's lock an operation whose process died left on the stack
	// (`pulumi cancel`); where there is none to remove, an error or nil as the backend says.
	Cancel(ctx context.Context) error
	// CancelCommand is the command that removes the stack's lock, in backticks, for people.
	CancelCommand() string
	// RemoveDeadLocks removes the stack's Pulumi locks when every one was taken by a process of
	// this machine that no longer runs (a killed up's), and names those processes; it removes
	// nothing and says "" when the stack holds no lock, when any lock's process may still run
	// (another machine's, a running one), or when the backend's locks are out of reach.
	RemoveDeadLocks(ctx context.Context) (string, error)
	// Close lets go of what opening the stack made (the Automation API's workspace folder, which
	// holds the stack's encryption salt): every operation closes the stacks it opens, however it
	// ends. The stack is not to be used afterwards.
	io.Closer
}

// Options steer one engine operation.
type Options struct {
	// Progress receives the engine's progress as it streams; nil for none.
	Progress io.Writer
	// Refresh reads the cloud first: in memory for a preview (drift), into the state for an up.
	Refresh bool
	// ClearPendingCreates drops the creates an interrupted operation left pending (refresh).
	ClearPendingCreates bool
	// Transform, if set, applies to every resource the program registers (adopt imports with it).
	Transform pulumi.ResourceTransform
	// Message, if set, is recorded with an up in the stack's history.
	Message string
}

// Output is one stack output.
type Output struct {
	Value  any
	Secret bool
}

// Update is a stack's latest update, as its history says.
type Update struct {
	// Operation is "update", "refresh", "destroy", ... (Pulumi's history calls it the update's
	// kind, and so does the JSON); Result "succeeded", "failed", "in-progress".
	Operation string `json:"kind"`
	Result    string `json:"result"`
	// Ended is when it ended, RFC 3339; "" when it has not.
	Ended string `json:"ended"`
	// Version is the update's number in the stack's history (a saved plan names it); 0 unknown.
	Version int `json:"-"`
	// Message is the message the update was run with (adopt's says changes were left).
	Message string `json:"-"`
	// By is who ran it, where the history's environment says (the git author or committer of
	// the folder it ran in); "" when it does not.
	By string `json:"-"`
}

// Result is what one engine operation did, or in a preview would do, read from its own events.
type Result struct {
	// Changes counts the resources by operation ("create", "update", "replace", "delete", "same",
	// ...), from the engine's summary of this operation.
	Changes map[string]int
	// Steps are the resources the operation changes, or would, in the engine's order; "same" and
	// "refresh" steps are left out.
	Steps []Step
	// Previous are the stack's outputs before the operation (secrets "[secret]"), as the engine
	// read them from the state: what the last up exported.
	Previous map[string]any
	// RecordedOnly are the manifest's changes since the stack's last deployment that no step
	// carries (RecordedOnly): the engine counts them "same", yet they are changes to review.
	RecordedOnly []diff.Change
	// ReadGone are the URNs of the resources the operation's read of the cloud found gone (or
	// deleted otherwise), which the engine drops from the state; readguard.go checks them.
	ReadGone []string
	// LeftByAdoption are the manifest fields the stack's last update, an adoption, left for this
	// up (adoptionLeft), for a preview shown before an up's question (Previewed).
	LeftByAdoption []string
	// Refreshed tells that the engine read the cloud into the state at the start of this same
	// run (an up with Options.Refresh): the state it wrote is the cloud as read then, with the
	// operation's own changes on top. Deployer.Up sets it.
	Refreshed bool
}

// Step is one resource's step.
type Step struct {
	URN, Type, Name string
	// Action is what the engine does to the resource: create, update, replace,
	// create-replacement, delete-replaced, delete, import, ...
	Action string
	// Paths are the properties it changes, e.g. "nodePool.nodeCount", "tags[0]": the provider's
	// detailed diff where it gives one.
	Paths []string
	// Old and New are the resource's inputs before and after; secrets read "[secret]".
	Old, New map[string]any
	// Live are the resource's outputs before the step: what the provider last read from the
	// cloud, computed properties included.
	Live map[string]any
}

// Replaces tells whether the result replaces anything.
func (r Result) Replaces() bool {
	return r.Changes[string(apitype.OpReplace)] > 0 || r.Changes[string(apitype.OpCreateReplacement)] > 0 ||
		r.Changes[string(apitype.OpDeleteReplaced)] > 0
}

// Creates tells whether the result creates anything, a replacement's new resource included.
func (r Result) Creates() bool { return r.Changes[string(apitype.OpCreate)] > 0 || r.Replaces() }

// Replaced are the resources the result replaces, "type name", each once, in the engine's order.
func (r Result) Replaced() []string {
	var out []string
	for _, step := range r.Steps {
		switch apitype.OpType(step.Action) {
		case apitype.OpReplace, apitype.OpCreateReplacement, apitype.OpDeleteReplaced:
			if name := step.Type + " " + step.Name; !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	if len(out) == 0 && r.Replaces() {
		// A count without its steps (a result read back from a summary): still a replacement.
		out = append(out, "a resource")
	}
	return out
}

// Changed says the operations that change something, "update 1, replace 1"; "" when none does.
func (r Result) Changed() string {
	var parts []string
	for op, n := range r.Changes {
		switch apitype.OpType(op) {
		case apitype.OpSame, apitype.OpRead, apitype.OpRefresh:
		default:
			if n > 0 {
				parts = append(parts, op+" "+strconv.Itoa(n))
			}
		}
	}
	sort.Strings(parts)
	if n := len(r.RecordedOnly); n > 0 {
		parts = append(parts, recordedOnly(n))
	}
	return strings.Join(parts, ", ")
}

// recordedOnly counts the changes only the stack's state records: "1 change recorded only".
func recordedOnly(n int) string {
	if n == 1 {
		return "1 change recorded only"
	}
	return strconv.Itoa(n) + " changes recorded only"
}

// Summary says the result in words, the creates, updates, replacements and deletes first: "1
// create, 2 same"; "no changes" when there are none.
func (r Result) Summary() string {
	var parts []string
	for _, op := range []apitype.OpType{apitype.OpCreate, apitype.OpUpdate, apitype.OpReplace, apitype.OpDelete, apitype.OpImport, apitype.OpSame} {
		if n := r.Changes[string(op)]; n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+string(op))
		}
	}
	if n := len(r.RecordedOnly); n > 0 {
		parts = append(parts, recordedOnly(n))
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

// IsAction tells whether the step's action is one of actions.
func (s Step) IsAction(actions ...apitype.OpType) bool {
	for _, a := range actions {
		if s.Action == string(a) {
			return true
		}
	}
	return false
}

// StringOutput is the string value of an output, "" when there is none.
func StringOutput(outputs map[string]Output, name string) string {
	s, _ := outputs[name].Value.(string)
	return s
}
