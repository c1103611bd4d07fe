package main

import (
	"fmt"
	"io"

	"github.com/clusterplane/clusterplane/pkg/deploy"
)

// adoptPace is the pace of one adopt run, said on w when it slows the run: a fleet large enough
// to exceed its cloud's rate limit is spaced out whatever --parallel says, and the user learns
// why it takes the minutes it does.
func adoptPace(w io.Writer, targets []deploy.Target) *deploy.AdoptPacer {
	p := deploy.NewAdoptPacer(targets)
	for _, b := range p.Budgets() {
		if b.Paced > 0 {
			fmt.Fprintln(w, "adopt paces its requests to stay under the cloud's rate limit: "+b.String())
		}
	}
	return p
}
