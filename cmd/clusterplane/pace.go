package main

import (
	"fmt"
	"io"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

// pace is the pace of one run of command over targets, said on w when it slows the run: a fleet
// large enough to exceed its cloud's rate limit is spaced out whatever --parallel says, and the
// user learns why it takes the minutes it does.
func pace(w io.Writer, command string, targets []deploy.Target, op deploy.Requests) *deploy.Pacer {
	p := deploy.NewPacer(targets, op)
	for _, b := range p.Budgets() {
		if b.Paced > 0 {
			fmt.Fprintln(w, command+" paces its requests to stay under the cloud's rate limit: "+b.String())
		}
	}
	return p
}
