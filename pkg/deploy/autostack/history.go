package autostack

import (
	"context"

	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/opthistory"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

// History is the stack's whole history, newest first (deploy.HistoryReader).
func (s *stackOf) History(ctx context.Context) ([]deploy.Update, error) {
	// A page size of 0 asks the CLI for every record at once.
	history, err := s.auto.History(ctx, 0, 0, opthistory.ShowSecrets(false))
	if err != nil {
		return nil, classify(ctx, "read the stack's history", err, "", s.backend, s)
	}
	out := make([]deploy.Update, 0, len(history))
	for _, h := range history {
		out = append(out, updateOf(h))
	}
	return out, nil
}

// updateOf is one record of the stack's history as deploy says it.
func updateOf(h auto.UpdateSummary) deploy.Update {
	u := deploy.Update{Operation: h.Kind, Result: h.Result, Version: h.Version, Message: h.Message, By: by(h.Environment)}
	if h.EndTime != nil {
		u.Ended = *h.EndTime
	}
	return u
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
