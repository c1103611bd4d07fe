package stackstate

import (
	"fmt"
	"strings"

	"github.com/pkg/errors"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/kinds"
)

// ErrNotDeployed: the stack does not exist; the manifest was never deployed (or its stack was
// removed).
var ErrNotDeployed = errors.New("the stack does not exist: the manifest was never deployed")

// ErrCancelled: the operation was interrupted (Ctrl-C) or its deadline passed; the engine stopped
// cleanly where it could.
var ErrCancelled = errors.New("cancelled")

// LockedError: another operation holds the stack's lock, or died holding it.
type LockedError struct {
	// Cancel is the command that removes the lock, for when the holder was killed.
	Cancel string
}

func (e *LockedError) Error() string {
	return "the stack is locked: another operation on it is running. Wait for it to end; if it was killed, " +
		"remove its lock with " + e.Cancel + ", then run this again"
}

// PendingOperationsError: an earlier operation was interrupted and left operations pending that a
// refresh reconciles with the cloud.
type PendingOperationsError struct{}

func (*PendingOperationsError) Error() string {
	return "an earlier operation on the stack was interrupted and left pending operations"
}

// PendingCreate is a resource an interrupted operation (a killed up) was creating: the cloud may
// hold it, but the stack has no id for it. Another up would create it again (a second cluster, the
// first one forgotten), and destroy would leave it in the cloud.
type PendingCreate struct {
	URN, Type, Name string
}

// Leftovers is what an interrupted operation left its stack holding, as far as clusterplane can
// find out: the lock, the operations left pending, and what the cloud holds of the manifest's
// name that the stack does not. PendingCreatesError and InterruptedError both say it, in one
// wording (Advice).
type Leftovers struct {
	// Creates are the creates left pending; Others counts the other pending operations.
	Creates []PendingCreate
	Others  int
	// Cancel is the command that removes the lock the interrupted operation may have left.
	Cancel string
	// Locked tells that the stack's lock is held, when LockKnown (only a local file or
	// PostgreSQL backend's locks are read): else the advice says "if".
	Locked, LockKnown bool
	// Found are the resources of the manifest's name the cloud holds and the stack does not, when
	// Looked (the cloud was asked and answered): for a pending create, the ids to import.
	Found  []kinds.Live
	Looked bool
}

// PendingCreatesError refuses to operate on a stack with pending creates.
type PendingCreatesError struct {
	Leftovers
}

func (e *PendingCreatesError) Error() string { return e.Leftovers.creates() }

// creates says which creates are pending and why that stops the next operation.
func (l Leftovers) creates() string {
	var what []string
	for _, c := range l.Creates {
		what = append(what, c.Type+" "+c.Name)
	}
	return "an earlier operation on the stack was interrupted while creating " + strings.Join(what, ", ") +
		" and left it pending: the cloud may hold it, but the stack has no id for it, and another up would create it again"
}

// Advice says the pending creates and what to run, in order, for the manifest in file: the lock
// the killed operation left, then each create recorded with its cloud id (or dropped when the
// cloud has none), the id named when the cloud was asked and holds one.
func (l Leftovers) Advice(file string) string {
	id := "CLOUD_ID"
	if l.Looked && len(l.Found) == 1 {
		id = l.Found[0].ID
	}
	imports := " --import-pending-create " + id
	if len(l.Creates) > 1 {
		imports = ""
		for _, c := range l.Creates {
			imports += " --import-pending-create '" + c.URN + "=CLOUD_ID'"
		}
	}
	lock := "if the stack is locked, remove its lock with " + l.Cancel + "; "
	if l.LockKnown && l.Locked {
		lock = "the stack is still locked by it: remove the lock with " + l.Cancel + "; "
	} else if l.LockKnown {
		lock = ""
	}
	advice := l.creates() + ". If that operation is still running, wait for it to end. Otherwise: " + lock
	switch {
	case l.Looked && len(l.Found) == 0:
		return advice + "the cloud holds none of the name, so run `clusterplane refresh " + file +
			" --clear-pending-creates`; then run this again"
	case l.Looked && len(l.Found) == 1 && len(l.Creates) == 1:
		return advice + "the cloud holds " + DescribeLive(l.Found) + ": run `clusterplane refresh " + file + imports +
			"` to record it; then run this again"
	case l.Looked && len(l.Creates) == 1:
		return advice + "the cloud holds " + DescribeLive(l.Found) + ": record one with `clusterplane refresh " + file +
			imports + "` (its id as CLOUD_ID) and delete the others in the cloud; then run this again"
	case l.Looked:
		advice += "the cloud holds " + DescribeLive(l.Found) + "; "
	}
	return advice + "look the resource up in the cloud and run `clusterplane refresh " + file +
		imports + "` with its id (CLOUD_ID), or `clusterplane refresh " + file + " --clear-pending-creates` if the cloud " +
		"has none; then run this again"
}

// ProtectedError: the engine refused to replace or delete a protected resource (a cluster with
// deletionProtection).
type ProtectedError struct {
	// Resources are the protected resources' types and names, as the engine named them.
	Resources []string
}

func (e *ProtectedError) Error() string {
	what := "a protected cluster"
	if len(e.Resources) > 0 {
		what = strings.Join(e.Resources, ", ")
	}
	return what + " is protected (deletionProtection): the Pulumi engine refuses to replace or delete it; deploy " +
		"deletionProtection: false first to replace or destroy it on purpose"
}

// RefusedError: the manifest changes what the providers cannot carry out, from the manifest the
// stack last deployed; nothing was deployed. Most are refused before the engine runs; a kind's
// module refuses some while the engine previews them (ModuleRefusal).
type RefusedError struct {
	Changes []diff.Change
	// Module is the module's own typed refusal, where ModuleRefusal read one back from the
	// engine's words (a *kubeversion.UpgradedPastError, which drift reads as the cloud's change
	// it is): what reads it asks errors.As, never the words again. Nil otherwise.
	Module error
}

func (e *RefusedError) Unwrap() error { return e.Module }

func (e *RefusedError) Error() string {
	rest, _ := e.Refusal()
	return "refused, " + rest
}

// Refusal is what the error says after "refused, ": nothing deployed, and each change's reason.
func (e *RefusedError) Refusal() (string, bool) {
	var parts []string
	for _, c := range e.Changes {
		parts = append(parts, c.Path+": "+c.Reason)
	}
	return "nothing deployed: " + strings.Join(parts, "; "), true
}

// PassphraseError: the passphrase given does not open the stack's secrets.
type PassphraseError struct {
	// Variable names where the passphrase came from.
	Variable string
}

func (e *PassphraseError) Error() string {
	return fmt.Sprintf("the passphrase in %s does not match the one the stack's secrets were encrypted with when it was "+
		"created: every operator of a stack needs the same passphrase", e.Variable)
}

// SecretsProviderError: the secrets provider named does not work (a wrong URL, no credentials for
// the key).
type SecretsProviderError struct {
	Provider string
	Cause    string
}

func (e *SecretsProviderError) Error() string {
	return fmt.Sprintf("the secrets provider %s cannot be used: %s", e.Provider, e.Cause)
}

// EngineError: the engine's operation failed; Cause is the failure in the engine's own words
// (the cloud's answer, a timeout), its first lines.
type EngineError struct {
	// Command is the engine command that failed: preview, update, refresh, destroy (not an
	// operation of the pipeline's, nor a step's action).
	Command string
	Cause   string
	// Status is the HTTP status of the cloud's answer the operation failed on, when the engine
	// quoted one: a 429 or a 5xx may pass if asked again (Transient).
	Status int
}

// Transient tells that the cloud turned the operation away for now (429 or a server error), so
// that running it again may succeed.
func (e *EngineError) Transient() bool {
	return e.Status == 429 || e.Status >= 500 && e.Status <= 599
}

func (e *EngineError) Error() string {
	if e.Cause == "" {
		return e.Command + " failed"
	}
	return e.Command + " failed: " + e.Cause
}

// A Refusal is an error whose text can begin with the word "refused" and its separator. Refusal
// is what follows them, and ok whether the text does begin so (an error joining several says the
// word only when its first does): an outcome whose reason is "refused" then gives the rest after
// it, without saying the word twice.
type Refusal interface {
	error
	Refusal() (rest string, ok bool)
}

// ReferencedError refuses to destroy a stack that other deployed stacks still read through a
// valueFrom reference: destroying a cluster under its pools' stacks takes the pools with it in
// the cloud, and leaves their stacks holding resources that are gone.
type ReferencedError struct {
	// By are the referencing stacks, <project>/<stack>, each once with its manifests: several
	// files may name one stack (scratch copies of a manifest).
	By []string
}

func (e *ReferencedError) Error() string {
	rest, _ := e.Refusal()
	return "refused: " + rest
}

// Refusal is what the error says after "refused: ": which stacks still reference it, and what to do.
func (e *ReferencedError) Refusal() (string, bool) {
	return "still referenced by the deployed stacks of " + strings.Join(e.By, ", ") +
		"; destroy them first, or name them in the same destroy (they are destroyed before what they reference)", true
}

// PanicError: clusterplane itself failed (a bug) while operating on the stack. The other stacks'
// operations went on; this one's engine was interrupted.
type PanicError struct {
	// Value is what the panic said.
	Value string
}

func (e *PanicError) Error() string {
	return "clusterplane failed unexpectedly (a bug; please report it with this message): " + e.Value +
		". The other stacks were not affected; run `clusterplane status` on this manifest to see what its stack was left with"
}

// InterruptedError: an operation was interrupted, by its deadline or by Ctrl-C, and left its stack
// needing recovery before the next operation: locked (the engine was stopped before it could let
// go), or with operations pending that it had started in the cloud.
type InterruptedError struct {
	// Cause is how the operation was interrupted.
	Cause error
	// File is the target's manifest, for the commands to run.
	File string
	Leftovers
}

func (e *InterruptedError) Unwrap() error { return e.Cause }

// Left says in a few words what the interruption left: "stack left locked, 1 pending create".
func (e *InterruptedError) Left() string {
	var parts []string
	if e.Locked {
		parts = append(parts, "locked")
	}
	if n := len(e.Creates); n > 0 {
		parts = append(parts, fmt.Sprintf("%d pending create(s)", n))
	}
	if e.Others > 0 {
		parts = append(parts, fmt.Sprintf("%d pending operation(s)", e.Others))
	}
	return "stack left " + strings.Join(parts, ", ")
}

func (e *InterruptedError) Error() string {
	cause := "interrupted"
	if e.Cause != nil {
		cause = e.Cause.Error()
	}
	if len(e.Creates) > 0 {
		// The lock and the ids found are part of the pending creates' advice.
		return cause + ". " + capitalize(e.Advice(e.File))
	}
	var advice []string
	if e.Locked {
		advice = append(advice, "The stack is still locked: the engine was stopped before it could let go. "+
			"Once no operation on it runs, remove the lock with "+e.Cancel)
	}
	if e.Others > 0 {
		advice = append(advice, "It left pending operations: run `clusterplane refresh "+e.File+"` to reconcile them with the cloud, then run this again")
		if !e.LockKnown {
			advice = append(advice, "If a later command says the stack is locked, remove the lock with "+e.Cancel)
		}
	}
	if len(advice) == 0 {
		return cause
	}
	return cause + ". " + strings.Join(advice, ". ")
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// TornCheckpointError: a file backend's checkpoint of the stack is not whole JSON (cut short
// while it was written, on a full disk), and every command on the stack fails on it.
type TornCheckpointError struct {
	// Path is the checkpoint. Backup is a whole copy to restore it from: the copy of the one before
	// it that the Pulumi CLI keeps beside it (<Path>.bak), or, FromHistory, the newest checkpoint
	// the backend's history kept of an update; "" when there is neither.
	Path, Backup string
	FromHistory  bool
	// BesideTorn tells that the copy beside it is there but torn too.
	BesideTorn bool
}

func (e *TornCheckpointError) Error() string {
	text := "the stack's checkpoint " + e.Path + " is torn (cut short while it was written: a full disk?), and every " +
		"command on the stack fails on it"
	if e.Backup != "" && !e.FromHistory {
		return text + ". Restore the copy the Pulumi CLI kept of the one before it with `cp " + e.Backup + " " + e.Path +
			"` (it may lack the last operation's changes: run refresh, then up, to read them back from the cloud)"
	}
	beside := "there is no copy beside it (" + e.Path + ".bak)"
	if e.BesideTorn {
		beside = "the copy beside it (" + e.Path + ".bak) is torn too"
	}
	if e.Backup == "" {
		return text + "; " + beside + ", and the backend's history holds no whole checkpoint of the stack: restore it from your own backups"
	}
	return text + "; " + beside + ". Restore the checkpoint the backend's history kept of the stack's last recorded update with `cp " +
		e.Backup + " " + e.Path + "` (it may lack later operations' changes: run refresh, then up, to read them back from the cloud)"
}

// DescribeLive names the resources: `cluster dev-fra1 in region fra1 (id a, id b)`.
func DescribeLive(live []kinds.Live) string {
	if len(live) == 0 {
		return "nothing"
	}
	var ids []string
	for _, l := range live {
		ids = append(ids, l.ID)
	}
	what := live[0].Type + " " + live[0].Name
	if len(live) > 1 {
		what = fmt.Sprintf("%d %ss named %s", len(live), live[0].Type, live[0].Name)
	}
	if live[0].Where != "" {
		what += " in " + live[0].Where
	}
	return what + " (id " + strings.Join(ids, ", id ") + ")"
}
