package deploytarget

import (
	"fmt"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// A stack deploys one manifest's resources. Another manifest's metadata.name deployed onto it
// (up FILE --stack OTHER) gives its resources new URNs: the engine plans to create the new ones
// and delete OTHER's, which is no replacement to it, so nothing would stop it. Its metadata.env
// is what organisation policy reads, so a manifest of one environment deployed onto another's
// stack would pass the rules meant for its own. Both are refused before the engine runs.

// Identity paths: what names a stack's manifest.
const (
	namePath = "metadata.name"
	envPath  = "metadata.env"
)

// RetargetError: the manifest names other resources, or another environment, than the manifest
// its stack recorded.
type RetargetError struct {
	// Stack is the stack's key; Changes the identity fields that differ.
	Stack   string
	Changes []diff.Change
	// EnvChanged: metadata.env differs, which Retarget does not allow.
	EnvChanged bool
}

func (e *RetargetError) Error() string {
	var parts []string
	for _, c := range e.Changes {
		parts = append(parts, fmt.Sprintf("%s %s, the manifest %s", c.Path, quoted(c.Old), quoted(c.New)))
	}
	msg := "stack " + e.Stack + " deployed another manifest: its " + strings.Join(parts, "; its ")
	if e.EnvChanged {
		return msg + ". A stack's environment never changes (policy reads metadata.env): deploy the manifest to its own " +
			"stack (leave out --stack), or destroy this one first"
	}
	return msg + ". Deploying it would delete what the stack deployed and create the manifest's resources: leave out " +
		"--stack to deploy it to its own stack, or add --retarget if that is meant"
}

// quoted is a field's value as the messages show it: quoted, or "none".
func quoted(v any) string {
	if v == nil || v == "" {
		return "none"
	}
	return fmt.Sprintf("%q", fmt.Sprint(v))
}

// Retargeted compares the identity of t's manifest with the manifest the stack recorded: nil
// when they agree or the stack recorded none; a *RetargetError to refuse with otherwise. A new
// metadata.name passes only with t.Retarget; a new metadata.env never does.
func Retargeted(t Target, outputs map[string]stackstate.Output) (renamed bool, err error) {
	result, err := t.SinceDeployed(outputs)
	if err != nil || result == nil {
		return false, err
	}
	refusal := &RetargetError{Stack: t.Key()}
	for _, c := range result.Changes {
		switch c.Path {
		case namePath:
			renamed = true
			refusal.Changes = append(refusal.Changes, c)
		case envPath:
			refusal.EnvChanged = true
			refusal.Changes = append(refusal.Changes, c)
		}
	}
	if refusal.EnvChanged || renamed && !t.Retarget {
		return renamed, refusal
	}
	return renamed, nil
}
