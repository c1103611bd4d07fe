package reconcile

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// servedWords are the CLI's words for what fixes a drift, in a Drifted message `clusterplane
// status --drift` writes, each with serve's own: a client of the API runs no up, the worker
// deploys the object's spec. The longer phrases come first, so that "no up puts back" is not read
// as "up would" inside it.
var servedWords = strings.NewReplacer(
	"the last up applied", "the last deploy applied",
	"where no up can put it back", "where no deploy of the spec can put it back",
	"no up puts back", "no deploy of the spec puts back",
	"up cannot put this back", "no deploy of the spec can put this back",
	"and up refuses", "and a deploy of the spec refuses",
	"once up finishes it", "once a deploy finishes it",
	"up would", "the next deploy of the spec would",
)

// served is a condition status wrote, as serve reports it: a Drifted message says what the
// worker's next deploy of the spec would do ("the next deploy of the spec would update 1"),
// where the CLI's says what its up would; every other condition is kept as status wrote it.
func served(c outcome.Condition) store.Condition {
	if c.Type == "Drifted" {
		c.Message = servedWords.Replace(c.Message)
	}
	return condition(c.Type, c.Status, string(c.Reason), c.Message)
}
