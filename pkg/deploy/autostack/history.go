package autostack

import (
	"context"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/opthistory"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

// History is the stack's whole history, newest first (stackstate.Stack).
func (s *stackOf) History(ctx context.Context) ([]stackstate.Update, error) {
	// A page size of 0 asks the CLI for every record at once.
	history, err := s.auto.History(ctx, 0, 0, opthistory.ShowSecrets(false))
	if err != nil {
		return nil, classify(ctx, "read the stack's history", err, "", s.backend, s)
	}
	out := make([]stackstate.Update, 0, len(history))
	numbered := false
	for _, h := range history {
		out = append(out, updateOf(h))
		numbered = numbered || h.Version != 0
	}
	if !numbered {
		numberByPlace(out)
	}
	return out, nil
}

// numberByPlace numbers a history (newest first) that records no version numbers, as a file
// backend's does (the CLI reports 0 for every one): each by its place, counted from the oldest,
// which a later update leaves as it is.
func numberByPlace(history []stackstate.Update) {
	for i := range history {
		history[i].Version = len(history) - i
	}
}

// rawUpdate is one record of a stack's history as the CLI keeps it, read either way: through
// `pulumi stack history --json` (History, LastUpdate) or from the backend's history file
// (records.go).
type rawUpdate struct {
	Kind, Result, Message string
	Version               int
	// Ended is when it ended, as `stack history --json` writes it (RFC 5424, milliseconds); ""
	// when it has not.
	Ended       string
	Environment map[string]string
}

// update is the record as deploy says it: the one mapping every reader of the history shares,
// so that a record reads alike whichever way it was read (the fleet scan matches an adoption's
// message, which the CLI records quoted).
func (r rawUpdate) update() stackstate.Update {
	return stackstate.Update{Operation: r.Kind, Result: r.Result, Version: r.Version, Message: recordedMessage(r.Message),
		By: by(r.Environment), Ended: r.Ended}
}

// updateOf is one record of the stack's history, as `pulumi stack history --json` gives it, as
// deploy says it.
func updateOf(h auto.UpdateSummary) stackstate.Update {
	r := rawUpdate{Kind: h.Kind, Result: h.Result, Message: h.Message, Version: h.Version, Environment: h.Environment}
	if h.EndTime != nil {
		r.Ended = *h.EndTime
	}
	return r.update()
}

// recordedMessage is an update's message as it was given. The Automation API passes it to the
// CLI as --message=%q (sdk/v3 go/auto/stack.go), with no shell to take the quotes off, so the
// history records it quoted.
func recordedMessage(m string) string {
	if len(m) >= 2 && strings.HasPrefix(m, `"`) && strings.HasSuffix(m, `"`) {
		if unquoted, err := strconv.Unquote(m); err == nil {
			return unquoted
		}
	}
	return m
}

// by is who ran an operation, as the Pulumi CLI records it in the update's environment: the git
// author of the folder it ran in, else its committer; "" when it ran outside a git checkout.
func by(env map[string]string) string {
	for _, k := range []string{"git.author", "git.committer"} {
		name := env[k]
		if name == "" {
			continue
		}
		if email := env[k+".email"]; email != "" {
			return name + " <" + email + ">"
		}
		return name
	}
	return ""
}
