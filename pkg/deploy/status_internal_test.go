package deploy

import (
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"strings"
	"testing"
)

func TestAFailedOrCancelledLastOperationSaysWhichCommandToRunAgain(t *testing.T) {
	tests := []struct{ operation, says string }{
		{"update", "the last update failed or was cancelled: run up again"},
		{"destroy", "the last destroy failed or was cancelled: run destroy again"},
	}
	for _, tt := range tests {
		t.Run(tt.operation, func(t *testing.T) {
			ready := readyOf(&stackstate.Update{Operation: tt.operation, Result: "failed"}, &outcome.StackStatus{})
			if ready.Reason != "LastFailed" || !strings.Contains(ready.Message, tt.says) {
				t.Errorf("%s: %s, want LastFailed saying %q", ready.Reason, ready.Message, tt.says)
			}
		})
	}
}
